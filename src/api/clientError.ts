/**
 * Requests Node's HTTP parser refuses before any handler runs (headers over
 * the 16 KB limit, a request line with bytes HTTP does not allow, a malformed
 * request, a request that took too long to arrive): Node would answer them
 * with a bare status line and no body. This answers them in the spec's error
 * envelope instead, with a request id, and closes the connection as Node does.
 */
import type { Duplex } from "node:stream"
import { newRequestId } from "./requestPolicy.js"

const refusal = (code: string | undefined): readonly [number, string, string, string] => {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return [431, "Request Header Fields Too Large", "request_header_too_large", "the request headers exceed 16 KB"]
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return [413, "Payload Too Large", "payload_too_large", "the chunk extensions of the request are too large"]
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return [408, "Request Timeout", "request_timeout", "the request did not arrive in time"]
    default:
      return [400, "Bad Request", "bad_request", "the request is not valid HTTP/1.1"]
  }
}

/** A `clientError` listener for node:http servers. */
export const answerClientError = (error: Error & { code?: string }, socket: Duplex): void => {
  // as Node does: answer only when no response of this connection is under way
  const inFlight = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage
  if (error.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent === true) {
    socket.destroy()
    return
  }
  const [status, reason, code, message] = refusal(error.code)
  const requestId = newRequestId()
  const body = JSON.stringify({ error: { code, message, request_id: requestId } })
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`
  )
}
