/**
 * Requests Node's HTTP parser refuses before any handler runs (headers over
 * the 16 KB limit, a request line with bytes HTTP does not allow, a malformed
 * request, a request that took too long to arrive): Node would answer them
 * with a bare status line and no body. This answers them in the spec's error
 * envelope instead, with a request id, and closes the connection as Node does.
 */
import type { Duplex } from "node:stream"
import { envelopeText } from "./envelope.js"
import {
  type ApiErrorInstance,
  BadRequest,
  PayloadTooLarge,
  RequestHeaderTooLarge,
  RequestTimeout,
  statusOf
} from "./errors.js"
import { newRequestId } from "./requestPolicy.js"

const refusal = (code: string | undefined): readonly [ApiErrorInstance, string] => {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return [
        new RequestHeaderTooLarge({ message: "the request headers exceed 16 KB" }),
        "Request Header Fields Too Large"
      ]
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return [
        new PayloadTooLarge({ message: "the chunk extensions of the request are too large" }),
        "Payload Too Large"
      ]
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return [new RequestTimeout({ message: "the request did not arrive in time" }), "Request Timeout"]
    default:
      return [new BadRequest({ message: "the request is not valid HTTP/1.1" }), "Bad Request"]
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
  const [refused, reason] = refusal(error.code)
  const status = statusOf(refused)
  const requestId = newRequestId()
  const body = envelopeText(refused.code, refused.message, requestId)
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`
  )
}
