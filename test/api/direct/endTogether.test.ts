import { createServer, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { describe, expect, it } from "vitest"
import { makeEndTogether } from "../../../src/api/direct/endTogether.js"

const recording = (log: Array<string>, name: string) =>
  ({
    end: (body: Uint8Array | string) => log.push(`${name}:${typeof body === "string" ? body : body.length}`)
  }) as unknown as ServerResponse

const turn = () => new Promise<void>((ok) => setImmediate(ok))

describe("answers ended together", () => {
  it("ends nothing during the turn, then every answer of the turn in the order made; a later turn its own", async () => {
    const ends = makeEndTogether()
    const log: Array<string> = []
    ends.end(recording(log, "a"), "x")
    ends.end(recording(log, "b"), new Uint8Array(3))
    ends.end(recording(log, "c"), "yz")
    expect(log).toEqual([])
    await turn()
    expect(log).toEqual(["a:x", "b:3", "c:yz"])
    ends.end(recording(log, "d"), "w")
    expect(log).toHaveLength(3)
    await turn()
    expect(log).toEqual(["a:x", "b:3", "c:yz", "d:w"])
  })

  it("ends the rest of a batch when one answer's end throws, that one's response destroyed", async () => {
    const ends = makeEndTogether()
    const log: Array<string> = []
    const broken = {
      end: () => {
        throw new Error("socket gone wrong")
      },
      destroy: () => log.push("broken:destroyed")
    } as unknown as ServerResponse
    ends.end(recording(log, "a"), "x")
    ends.end(broken, "y")
    ends.end(recording(log, "c"), "z")
    await turn()
    expect(log).toEqual(["a:x", "broken:destroyed", "c:z"])
  })

  it("delivers text and bytes whole over a real socket, the declared length counted in UTF-8", async () => {
    const ends = makeEndTogether()
    const text = JSON.stringify({ name: "Société Générale — ½", n: 1 })
    const server = createServer((req, res) => {
      const body = req.url === "/bytes" ? Buffer.from(text, "utf8") : text
      res.writeHead(200, { "content-length": String(Buffer.byteLength(text, "utf8")) })
      ends.end(res, body)
    })
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok))
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      const answers = await Promise.all(["/text", "/bytes", "/text"].map((p) => fetch(base + p).then((r) => r.text())))
      expect(answers).toEqual([text, text, text])
    } finally {
      await new Promise<void>((ok) => server.close(() => ok()))
    }
  })
})
