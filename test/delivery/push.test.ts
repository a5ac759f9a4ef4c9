/**
 * The push gateway: the recording default and the HTTP adapter against a local gateway.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { maskToken, PushGateway } from "../../src/delivery/push.js"
import { localServer } from "./receiver.js"

const token = "f3a9c2e1d4b5a6978877665544332211ffeeddccbbaa99887766554433221100"
const notification = { title: "Momentum", body: "3 tickers newly match", data: { webhook_id: "wh_1" } }

/** Collects every log line's message and annotations. */
const captureLogs = () => {
  const lines: Array<string> = []
  const logger = Logger.make(({ message, annotations }) => {
    lines.push(JSON.stringify({ message, annotations: Object.fromEntries(annotations) }))
  })
  return { lines, layer: Logger.replace(Logger.defaultLogger, logger) }
}

describe("PushGateway.recording", () => {
  it.effect("keeps the last pushes, answers 202, logs without the token", () => {
    const logs = captureLogs()
    return Effect.gen(function* () {
      const gateway = yield* PushGateway
      const result = yield* gateway.send(token, "ios", notification)
      expect(result).toEqual({ status: 202, retryAfterSeconds: null, error: null, durationMs: 0 })
      for (let i = 0; i < 4; i++) yield* gateway.send(`token-${i}-abcdefgh`, "android", notification)
      const recent = yield* gateway.recent
      expect(recent.map((p) => p.deviceToken)).toEqual(["token-1-abcdefgh", "token-2-abcdefgh", "token-3-abcdefgh"])
      expect(recent[0]).toMatchObject({ platform: "android", notification, result })
      expect(logs.lines).toHaveLength(5)
      expect(logs.lines[0]).toContain(maskToken(token))
      expect(logs.lines.join("\n")).not.toContain(token)
      expect(logs.lines.join("\n")).not.toContain("token-1-abcdefgh")
    }).pipe(Effect.provide(Layer.merge(PushGateway.recordingWith(3), logs.layer)))
  })

  it.effect("the default layer keeps 100", () =>
    Effect.gen(function* () {
      const gateway = yield* PushGateway
      for (let i = 0; i < 120; i++) yield* gateway.send(`t${i}`, "ios", notification)
      const recent = yield* gateway.recent
      expect(recent).toHaveLength(100)
      expect(recent[0]!.deviceToken).toBe("t20")
    }).pipe(Effect.provide(PushGateway.recording), Logger.withMinimumLogLevel(LogLevel.None))
  )
})

describe("PushGateway.http", () => {
  it.scopedLive("POSTs {token, platform, title, body, data} with the gateway's headers", () =>
    Effect.gen(function* () {
      const server = yield* localServer((req, res) =>
        req.url === "/gone" ? res.writeHead(410).end() : res.writeHead(200).end("{}")
      )
      const logs = captureLogs()
      const send = (url: string) =>
        Effect.flatMap(PushGateway, (g) => Effect.zip(g.send(token, "android", notification), g.recent)).pipe(
          Effect.provide(
            Layer.merge(PushGateway.http(url, { headers: { authorization: "Bearer gw-secret" } }), logs.layer)
          )
        )
      const [result, recent] = yield* send(server.url("/push"))
      expect(result.status).toBe(200)
      expect(recent).toHaveLength(1)
      expect(server.received[0]!.headers["content-type"]).toBe("application/json")
      expect(server.received[0]!.headers.authorization).toBe("Bearer gw-secret")
      expect(JSON.parse(server.received[0]!.body)).toEqual({
        token,
        platform: "android",
        title: "Momentum",
        body: "3 tickers newly match",
        data: { webhook_id: "wh_1" }
      })
      const [gone] = yield* send(server.url("/gone"))
      expect(gone.status).toBe(410)
      expect(logs.lines).toHaveLength(2)
      expect(logs.lines[1]).toContain('"status":410')
      expect(logs.lines.join("\n")).not.toContain("gw-secret")
      expect(logs.lines.join("\n")).not.toContain(token)
    })
  )
})
