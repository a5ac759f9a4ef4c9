/**
 * Target safety: every encoded and IPv6 form of a forbidden address is refused at
 * validation, public targets pass, and the dispatcher vets (and pins) every address it dials.
 */

import type { AddressInfo } from "node:net"
import * as tls from "node:tls"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { request } from "undici"
import {
  forbiddenAddress,
  isForbiddenAddress,
  type LookupAll,
  safeDispatcher,
  TargetRefusedError,
  validateTargetUrl
} from "../../src/delivery/targetSafety.js"
import { localServer } from "./receiver.js"

const secure = { allowInsecure: false }
const reasonOf = (raw: string, options = secure) =>
  Either.match(validateTargetUrl(raw, options), { onLeft: (r) => r.reason, onRight: () => null })

describe("isForbiddenAddress", () => {
  it.each([
    ["0.0.0.0", "this-network"],
    ["0.1.2.3", "this-network"],
    ["10.0.0.1", "private"],
    ["10.255.255.255", "private"],
    ["100.64.0.1", "shared (CGNAT)"],
    ["100.127.255.254", "shared (CGNAT)"],
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["169.254.169.254", "cloud metadata"],
    ["169.254.1.1", "link-local"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.0.0.8", "IETF protocol assignment"],
    ["192.0.2.1", "documentation"],
    ["192.88.99.1", "6to4 relay"],
    ["192.168.1.1", "private"],
    ["198.18.0.1", "benchmarking"],
    ["198.19.255.255", "benchmarking"],
    ["198.51.100.7", "documentation"],
    ["203.0.113.9", "documentation"],
    ["224.0.0.1", "multicast"],
    ["239.255.255.250", "multicast"],
    ["240.0.0.1", "reserved"],
    ["255.255.255.255", "broadcast"],
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:a9fe:a9fe", "cloud metadata"],
    ["::ffff:0:a00:1", "private"],
    ["::127.0.0.1", "IPv4-compatible (deprecated)"],
    ["::8.8.8.8", "IPv4-compatible (deprecated)"],
    ["64:ff9b::a00:1", "private"],
    ["64:ff9b::10.0.0.1", "private"],
    ["64:ff9b::7f00:1", "loopback"],
    ["64:ff9b:1::1", "local-use NAT64"],
    ["64:ff9b:1:ffff::8.8.8.8", "local-use NAT64"],
    ["2002:0a00:0001::", "private"],
    ["2002:7f00:1::1", "loopback"],
    ["2002:a9fe:a9fe::", "cloud metadata"],
    ["2001::1", "Teredo"],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"],
    ["2001:db8::1", "documentation"],
    ["2001:10::1", "ORCHID"],
    ["3fff::1", "documentation"],
    ["fc00::1", "unique local (ULA)"],
    ["fd00:ec2::254", "unique local (ULA)"],
    ["fdff:ffff::1", "unique local (ULA)"],
    ["fe80::1", "link-local"],
    ["fe80::1%eth0", "link-local"],
    ["febf::1", "link-local"],
    ["fec0::1", "site-local"],
    ["ff02::1", "multicast"],
    ["ff0e::1", "multicast"],
    ["100::1", "discard-only"],
    ["100::ffff:ffff:ffff:ffff", "discard-only"],
    ["1::1", "reserved"],
    ["4000::1", "reserved"],
    ["not-an-ip", "not an IP address"],
    ["256.0.0.1", "not an IP address"]
  ])("%s is forbidden (%s)", (ip, category) => {
    expect(isForbiddenAddress(ip)).toBe(true)
    expect(forbiddenAddress(ip)?.category).toBe(category)
  })

  it.each([
    "93.184.216.34",
    "8.8.8.8",
    "1.1.1.1",
    "100.63.255.255",
    "100.128.0.0",
    "172.15.255.255",
    "172.32.0.0",
    "169.253.255.255",
    "192.0.1.1",
    "198.17.255.255",
    "198.20.0.0",
    "223.255.255.255",
    "2606:4700:4700::1111",
    "2a00:1450:4001:82a::200e",
    "::ffff:93.184.216.34",
    "64:ff9b::5db8:d822",
    "2002:5db8:d822::1",
    "2001:4860:4860::8888",
    "2001:1:2::"
  ])("%s is public", (ip) => {
    expect(forbiddenAddress(ip)).toBeNull()
    expect(isForbiddenAddress(ip)).toBe(false)
  })

  it("embedded IPv4 addresses are reported", () => {
    expect(forbiddenAddress("::ffff:10.1.2.3")).toEqual({ category: "private", embeddedV4: "10.1.2.3" })
    expect(forbiddenAddress("2002:c0a8:0101::1")).toEqual({ category: "private", embeddedV4: "192.168.1.1" })
  })
})

describe("validateTargetUrl", () => {
  it.each([
    ["https://2130706433/", "target_url points to a loopback address (127.0.0.1)"],
    ["https://0x7f.1/", "target_url points to a loopback address (127.0.0.1)"],
    ["https://0x7f000001/", "target_url points to a loopback address (127.0.0.1)"],
    ["https://0177.0.0.1/", "target_url points to a loopback address (127.0.0.1)"],
    ["https://127.1/", "target_url points to a loopback address (127.0.0.1)"],
    ["https://127.0.0.1:8443/hook", "target_url points to a loopback address (127.0.0.1)"],
    ["https://0/", "target_url points to a this-network address (0.0.0.0)"],
    ["https://10.0.0.1/", "target_url points to a private address (10.0.0.1)"],
    ["https://012.0.0.1/", "target_url points to a private address (10.0.0.1)"],
    ["https://167772161/", "target_url points to a private address (10.0.0.1)"],
    ["https://169.254.169.254/latest/meta-data/", "target_url points to a cloud metadata address (169.254.169.254)"],
    ["https://0xa9fea9fe/", "target_url points to a cloud metadata address (169.254.169.254)"],
    ["https://100.64.0.1/", "target_url points to a shared (CGNAT) address (100.64.0.1)"],
    ["https://224.0.0.1/", "target_url points to a multicast address (224.0.0.1)"],
    ["https://[::1]/", "target_url points to a loopback address (::1)"],
    ["https://[::]/", "target_url points to an unspecified address (::)"],
    ["https://[::ffff:127.0.0.1]/", "target_url points to a loopback address (::ffff:7f00:1, IPv4 127.0.0.1)"],
    ["https://[::ffff:7f00:1]/", "target_url points to a loopback address (::ffff:7f00:1, IPv4 127.0.0.1)"],
    ["https://[64:ff9b::a00:1]/", "target_url points to a private address (64:ff9b::a00:1, IPv4 10.0.0.1)"],
    ["https://[2002:0a00:0001::]/", "target_url points to a private address (2002:a00:1::, IPv4 10.0.0.1)"],
    ["https://[fc00::1]/", "target_url points to a unique local (ULA) address (fc00::1)"],
    ["https://[fd12:3456::1]/", "target_url points to a unique local (ULA) address (fd12:3456::1)"],
    ["https://[fe80::1]/", "target_url points to a link-local address (fe80::1)"],
    ["https://[ff02::1]/", "target_url points to a multicast address (ff02::1)"],
    ["https://[2001:db8::1]/", "target_url points to a documentation address (2001:db8::1)"],
    ["https://localhost/", "target_url points to a local host name (localhost)"],
    ["https://LOCALHOST./", "target_url points to a local host name (localhost)"],
    ["https://api.localhost/", "target_url points to a local host name (api.localhost)"],
    [
      "https://metadata.google.internal/computeMetadata/v1/",
      "target_url points to a local host name (metadata.google.internal)"
    ],
    ["https://db.corp.internal/", "target_url points to a local host name (db.corp.internal)"],
    ["https://printer.local/", "target_url points to a local host name (printer.local)"],
    ["https://redis:6379/", "target_url must use a fully qualified host name (redis)"],
    ["http://example.com/hook", "target_url must use https"],
    ["ftp://example.com/hook", "target_url must use https"],
    ["file:///etc/passwd", "target_url must use https"],
    ["/relative/hook", "target_url must be an absolute https URL"],
    ["", "target_url must be an absolute https URL"],
    ["https://user:secret@example.com/hook", "target_url must not contain credentials (user:password@)"],
    ["https://user@example.com/hook", "target_url must not contain credentials (user:password@)"],
    [`https://example.com/${"a".repeat(2040)}`, "target_url must be at most 2048 characters long"]
  ])("refuses %s", (raw, reason) => {
    expect(reasonOf(raw)).toBe(reason)
  })

  it.each([
    "https://example.com/hook",
    "https://93.184.216.34/",
    "https://hooks.example.com:8443/path?x=1",
    "https://[2606:4700:4700::1111]/hook",
    "https://[::ffff:93.184.216.34]/",
    "https://example.com./hook",
    `https://example.com/${"a".repeat(2028)}`
  ])("accepts %s", (raw) => {
    expect(reasonOf(raw)).toBeNull()
    expect(Either.getOrThrow(validateTargetUrl(raw, secure))).toBeInstanceOf(URL)
  })

  it("insecure targets allowed: http and local addresses pass, the rest still applies", () => {
    const insecure = { allowInsecure: true }
    for (const raw of ["http://127.0.0.1:8080/hook", "http://localhost:3000/", "https://[::1]/", "http://10.0.0.1/"])
      expect(reasonOf(raw, insecure)).toBeNull()
    expect(reasonOf("ftp://example.com/", insecure)).toBe("target_url must use http or https")
    expect(reasonOf("http://u:p@localhost/", insecure)).toBe("target_url must not contain credentials (user:password@)")
    expect(reasonOf("nope", insecure)).toBe("target_url must be an absolute http or https URL")
  })
})

/** A lookup stub that records the names it was asked for. */
const stubLookup = (table: Record<string, ReadonlyArray<string>>) => {
  const asked: Array<string> = []
  const lookup: LookupAll = async (hostname) => {
    asked.push(hostname)
    const addresses = table[hostname]
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" })
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }))
  }
  return { lookup, asked }
}

const dispatcherScoped = (options: Parameters<typeof safeDispatcher>[0]) =>
  Effect.acquireRelease(
    Effect.sync(() => safeDispatcher(options)),
    (d) => Effect.promise(() => d.destroy())
  )

const postVia = (dispatcher: ReturnType<typeof safeDispatcher>, url: string) =>
  Effect.promise(() =>
    request(url, { method: "POST", body: "{}", dispatcher }).then(
      async (r) => {
        await r.body.dump()
        return { status: r.statusCode, error: null as unknown }
      },
      (error: unknown) => ({ status: null, error })
    )
  )

describe("safeDispatcher", () => {
  it.scopedLive("refuses a host name whose lookup yields a private address, naming it", () =>
    Effect.gen(function* () {
      const { lookup, asked } = stubLookup({
        "evil.example.com": ["10.0.0.5"],
        "mixed.example.com": ["93.184.216.34", "::ffff:127.0.0.1"]
      })
      const d = yield* dispatcherScoped({ allowInsecure: false, connectTimeoutMs: 1000, lookup })
      const evil = yield* postVia(d, "https://evil.example.com/hook")
      expect(evil.error).toBeInstanceOf(TargetRefusedError)
      expect((evil.error as Error).message).toBe(
        "target refused: private address 10.0.0.5 (resolved from evil.example.com)"
      )
      // one forbidden address among several is enough to refuse
      const mixed = yield* postVia(d, "https://mixed.example.com/hook")
      expect((mixed.error as Error).message).toBe(
        "target refused: loopback address ::ffff:127.0.0.1 (IPv4 127.0.0.1) (resolved from mixed.example.com)"
      )
      expect(asked).toEqual(["evil.example.com", "mixed.example.com"])
    })
  )

  it.scopedLive("refuses IP literals (IPv4 and IPv6) without a lookup or a connection", () =>
    Effect.gen(function* () {
      const server = yield* localServer((_req, res) => res.end())
      const { lookup, asked } = stubLookup({})
      const d = yield* dispatcherScoped({ allowInsecure: false, connectTimeoutMs: 1000, lookup })
      const v4 = yield* postVia(d, server.url())
      expect((v4.error as Error).message).toBe("target refused: loopback address 127.0.0.1")
      const v6 = yield* postVia(d, `http://[::1]:${server.port}/hook`)
      expect((v6.error as Error).message).toBe("target refused: loopback address ::1")
      expect(asked).toEqual([])
      expect(server.received).toHaveLength(0)
    })
  )

  it.scopedLive("dials exactly the address it resolved and vetted (pinned), keeping the Host", () =>
    Effect.gen(function* () {
      const server = yield* localServer((_req, res) => res.writeHead(202).end())
      // `.test` never resolves through the system: the connection can only come from the pinned address
      const { lookup, asked } = stubLookup({ "receiver.test": ["127.0.0.1"] })
      const d = yield* dispatcherScoped({ allowInsecure: true, connectTimeoutMs: 1000, lookup })
      const result = yield* postVia(d, `http://receiver.test:${server.port}/hook`)
      expect(result).toEqual({ status: 202, error: null })
      expect(asked).toEqual(["receiver.test"])
      expect(server.received[0]!.headers.host).toBe(`receiver.test:${server.port}`)
    })
  )

  it.scopedLive("falls back to the next vetted address when one does not connect", () =>
    Effect.gen(function* () {
      const server = yield* localServer((_req, res) => res.writeHead(200).end())
      const closedPort = yield* Effect.scoped(
        Effect.map(
          localServer(() => {}),
          (s) => s.port
        )
      )
      const { lookup } = stubLookup({ "two.test": ["127.0.0.2", "127.0.0.1"] })
      // 127.0.0.2 is loopback too but nothing listens there on this port
      const d = yield* dispatcherScoped({ allowInsecure: true, connectTimeoutMs: 1000, lookup })
      expect((yield* postVia(d, `http://two.test:${server.port}/hook`)).status).toBe(200)
      const nothing = yield* postVia(d, `http://two.test:${closedPort}/hook`)
      expect((nothing.error as { code?: string }).code).toBe("ECONNREFUSED")
    })
  )

  it.scopedLive("keeps the original host name for TLS SNI when dialling the pinned address", () =>
    Effect.gen(function* () {
      let sni: string | undefined
      const server = yield* Effect.acquireRelease(
        Effect.async<tls.Server>((resume) => {
          // no certificate at all: the handshake fails right after the ClientHello shows its SNI
          const s = tls.createServer({
            SNICallback: (name, cb) => {
              sni = name
              cb(new Error("no certificate here"))
            }
          })
          s.on("tlsClientError", () => {})
          s.listen(0, "127.0.0.1", () => resume(Effect.succeed(s)))
        }),
        (s) =>
          Effect.async<void>((resume) => {
            s.close(() => resume(Effect.void))
          })
      )
      const port = (server.address() as AddressInfo).port
      const { lookup } = stubLookup({ "hooks.receiver.test": ["127.0.0.1"] })
      const d = yield* dispatcherScoped({ allowInsecure: true, connectTimeoutMs: 1000, lookup })
      const result = yield* postVia(d, `https://hooks.receiver.test:${port}/hook`)
      expect(result.status).toBeNull()
      expect(sni).toBe("hooks.receiver.test")
    })
  )
})
