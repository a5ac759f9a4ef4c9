/**
 * Target safety for outbound deliveries (webhook and chat URLs).
 *
 * Two layers, both switched off by `WEBHOOK_ALLOW_INSECURE_TARGETS=true` (development and
 * tests only):
 *
 * 1. `validateTargetUrl` — at creation/update time (and again before every POST): an
 *    absolute `https://` URL (also `http://` when insecure targets are allowed) of at most
 *    2048 characters, without `user:password@`, whose host is not a local name (`localhost`,
 *    `*.localhost`, `*.local`, `*.internal` — which includes `metadata.google.internal` —,
 *    `*.localdomain`, `*.home.arpa`, or a single label such as `redis`) and, when it is an IP
 *    literal, not a forbidden address. The WHATWG URL parser has already normalized every
 *    IPv4 spelling (`2130706433`, `0x7f.1`, `0177.0.0.1`, `127.1`) to dotted form and every
 *    IPv6 literal to its compressed form, so the check sees the address that would be dialled.
 *
 * 2. `safeDispatcher` — for every connection actually opened: the connector resolves the
 *    host name itself (all addresses), refuses when ANY of them is forbidden, and then dials
 *    the vetted address (pinned: no second lookup, so DNS rebinding between the check and the
 *    dial is impossible). TLS keeps the original host name for SNI and certificate checks.
 *
 * Forbidden addresses (`forbiddenAddress` / `isForbiddenAddress`):
 * - IPv4: 0.0.0.0/8, 10/8, 100.64/10 (CGNAT), 127/8, 169.254/16 (link-local, incl. the cloud
 *   metadata address 169.254.169.254), 172.16/12, 192.0.0/24, 192.0.2/24, 192.88.99/24,
 *   192.168/16, 198.18/15, 198.51.100/24, 203.0.113/24, 224/4 (multicast), 240/4 (reserved),
 *   255.255.255.255.
 * - IPv6: `::`, `::1`, `::/96` (deprecated IPv4-compatible), 100::/64 (discard), 2001::/32
 *   (Teredo), 2001:10::/28 and 2001:20::/28 (ORCHID), 2001:db8::/32 and 3fff::/20
 *   (documentation), 64:ff9b:1::/48 (local-use NAT64), fc00::/7 (ULA), fe80::/10
 *   (link-local), fec0::/10 (site-local), ff00::/8 (multicast), and anything else outside
 *   the global unicast range 2000::/3.
 * - IPv6 forms that embed an IPv4 address are judged by that address: `::ffff:0:0/96`
 *   (IPv4-mapped), `::ffff:0:0:0/96` (IPv4-translated), 64:ff9b::/96 (well-known NAT64
 *   prefix — a public IPv4 behind it stays reachable on IPv6-only hosts), 2002::/16 (6to4).
 */
import * as dns from "node:dns"
import { isIP, isIPv4, isIPv6 } from "node:net"
import { Either } from "effect"
import { Agent, buildConnector } from "undici"

export interface TargetRefused {
  readonly reason: string
}

export const MAX_TARGET_URL_LENGTH = 2048

/** Why an address is forbidden: its category, and the IPv4 address it embeds when that decided it. */
export interface ForbiddenAddress {
  readonly category: string
  readonly embeddedV4?: string
}

// ---------------------------------------------------------------------------------------------
// IPv4

const v4ToInt = (ip: string): number => {
  const p = ip.split(".").map(Number)
  return ((p[0]! << 24) | (p[1]! << 16) | (p[2]! << 8) | p[3]!) >>> 0
}

const intToV4 = (n: number): string => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".")

const V4_RULES: ReadonlyArray<readonly [net: number, bits: number, category: string]> = [
  ["0.0.0.0", 8, "this-network"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "shared (CGNAT)"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.169.254", 32, "cloud metadata"],
  ["169.254.0.0", 16, "link-local"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "IETF protocol assignment"],
  ["192.0.2.0", 24, "documentation"],
  ["192.88.99.0", 24, "6to4 relay"],
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "benchmarking"],
  ["198.51.100.0", 24, "documentation"],
  ["203.0.113.0", 24, "documentation"],
  ["224.0.0.0", 4, "multicast"],
  ["255.255.255.255", 32, "broadcast"],
  ["240.0.0.0", 4, "reserved"]
].map(([net, bits, category]) => [v4ToInt(net as string), bits as number, category as string] as const)

const v4Category = (n: number): string | null => {
  for (const [net, bits, category] of V4_RULES) {
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0
    if ((n & mask) >>> 0 === net) return category
  }
  return null
}

// ---------------------------------------------------------------------------------------------
// IPv6

/** Parses a valid IPv6 text (as accepted by `net.isIPv6`, zone stripped) into a 128-bit integer. */
const v6ToBigInt = (text: string): bigint => {
  let s = text
  const lastColon = s.lastIndexOf(":")
  if (s.slice(lastColon + 1).includes(".")) {
    // a dotted IPv4 tail (`::ffff:1.2.3.4`) becomes two hex groups
    const n = v4ToInt(s.slice(lastColon + 1))
    s = `${s.slice(0, lastColon + 1)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`
  }
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((g) => Number.parseInt(g, 16)))
  const double = s.indexOf("::")
  const groups =
    double < 0
      ? parse(s)
      : (() => {
          const left = parse(s.slice(0, double))
          const right = parse(s.slice(double + 2))
          return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right]
        })()
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n)
}

const v6Net = (text: string, bits: number) => {
  const net = v6ToBigInt(text)
  const mask = bits === 0 ? 0n : ((1n << BigInt(bits)) - 1n) << BigInt(128 - bits)
  return { net, mask }
}

const inV6 = (n: bigint, rule: { net: bigint; mask: bigint }) => (n & rule.mask) === rule.net

const V6_EXACT: ReadonlyArray<readonly [bigint, string]> = [
  [0n, "unspecified"],
  [1n, "loopback"]
]

type Embedded = (n: bigint) => number
const low32: Embedded = (n) => Number(n & 0xffffffffn)

/** Prefixes whose forbiddenness is decided by the IPv4 address they carry. */
const V6_EMBEDDING: ReadonlyArray<readonly [{ net: bigint; mask: bigint }, string, Embedded]> = [
  [v6Net("::ffff:0:0", 96), "IPv4-mapped", low32],
  [v6Net("::ffff:0:0:0", 96), "IPv4-translated", low32],
  [v6Net("64:ff9b::", 96), "NAT64", low32],
  [v6Net("2002::", 16), "6to4", (n) => Number((n >> 80n) & 0xffffffffn)]
]

const V6_RULES: ReadonlyArray<readonly [{ net: bigint; mask: bigint }, string]> = [
  [v6Net("::", 96), "IPv4-compatible (deprecated)"],
  [v6Net("64:ff9b:1::", 48), "local-use NAT64"],
  [v6Net("100::", 64), "discard-only"],
  [v6Net("2001:db8::", 32), "documentation"],
  [v6Net("2001:10::", 28), "ORCHID"],
  [v6Net("2001:20::", 28), "ORCHID"],
  [v6Net("2001::", 32), "Teredo"],
  [v6Net("3fff::", 20), "documentation"],
  [v6Net("fc00::", 7), "unique local (ULA)"],
  [v6Net("fe80::", 10), "link-local"],
  [v6Net("fec0::", 10), "site-local"],
  [v6Net("ff00::", 8), "multicast"]
]

const GLOBAL_UNICAST = v6Net("2000::", 3)

const v6Forbidden = (n: bigint): ForbiddenAddress | null => {
  for (const [value, category] of V6_EXACT) if (n === value) return { category }
  for (const [rule, , embedded] of V6_EMBEDDING) {
    if (inV6(n, rule)) {
      const v4 = embedded(n)
      const category = v4Category(v4)
      return category === null ? null : { category, embeddedV4: intToV4(v4) }
    }
  }
  for (const [rule, category] of V6_RULES) if (inV6(n, rule)) return { category }
  if (!inV6(n, GLOBAL_UNICAST)) return { category: "reserved" }
  return null
}

const stripAddress = (ip: string): string => {
  let s = ip.trim()
  if (s.startsWith("[") && s.endsWith("]")) s = s.slice(1, -1)
  const zone = s.indexOf("%")
  return zone >= 0 ? s.slice(0, zone) : s
}

/**
 * Why `ip` must not be dialled, or null when it is a public address. Accepts IPv4 dotted
 * form and any IPv6 text (bracketed or not, with or without a zone). Anything that is not
 * an IP address is refused (fail closed) with category "not an IP address".
 */
export const forbiddenAddress = (ip: string): ForbiddenAddress | null => {
  const s = stripAddress(ip)
  if (isIPv4(s)) {
    const category = v4Category(v4ToInt(s))
    return category === null ? null : { category }
  }
  if (isIPv6(s)) return v6Forbidden(v6ToBigInt(s))
  return { category: "not an IP address" }
}

export const isForbiddenAddress = (ip: string): boolean => forbiddenAddress(ip) !== null

/** "loopback address 127.0.0.1", "private address ::ffff:a00:5 (IPv4 10.0.0.5)". */
export const describeForbidden = (ip: string, why: ForbiddenAddress): string =>
  `${why.category} address ${stripAddress(ip)}${why.embeddedV4 ? ` (IPv4 ${why.embeddedV4})` : ""}`

// ---------------------------------------------------------------------------------------------
// URLs

const LOCAL_SUFFIXES = [".localhost", ".local", ".internal", ".localdomain", ".home.arpa"]

const refuse = (reason: string): Either.Either<URL, TargetRefused> => Either.left({ reason })

/** Checks a target URL given by a user; see the module comment for the rules. */
export const validateTargetUrl = (
  raw: string,
  options: { readonly allowInsecure: boolean }
): Either.Either<URL, TargetRefused> => {
  if (typeof raw !== "string" || raw.trim() === "") return refuse("target_url must be an absolute https URL")
  if (raw.length > MAX_TARGET_URL_LENGTH)
    return refuse(`target_url must be at most ${MAX_TARGET_URL_LENGTH} characters long`)
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return refuse(
      options.allowInsecure
        ? "target_url must be an absolute http or https URL"
        : "target_url must be an absolute https URL"
    )
  }
  if (url.protocol !== "https:" && !(options.allowInsecure && url.protocol === "http:"))
    return refuse(options.allowInsecure ? "target_url must use http or https" : "target_url must use https")
  if (url.username !== "" || url.password !== "")
    return refuse("target_url must not contain credentials (user:password@)")
  if (url.hostname === "") return refuse("target_url must name a host")
  if (options.allowInsecure) return Either.right(url)

  const host = url.hostname.endsWith(".") ? url.hostname.slice(0, -1) : url.hostname
  const literal = stripAddress(host)
  if (isIP(literal) !== 0) {
    const why = forbiddenAddress(literal)
    return why === null
      ? Either.right(url)
      : refuse(
          `target_url points to ${/^(?:[aeio]|u(?!ni))/i.test(why.category) ? "an" : "a"} ${why.category} address (${literal}${why.embeddedV4 ? `, IPv4 ${why.embeddedV4}` : ""})`
        )
  }
  if (host === "localhost" || LOCAL_SUFFIXES.some((suffix) => host.endsWith(suffix)))
    return refuse(`target_url points to a local host name (${host})`)
  if (!host.includes(".")) return refuse(`target_url must use a fully qualified host name (${host})`)
  return Either.right(url)
}

// ---------------------------------------------------------------------------------------------
// Dispatcher

/** The error a refused connection fails with; its message names the address. */
export class TargetRefusedError extends Error {
  readonly code = "VIGIL_TARGET_REFUSED"
  constructor(
    readonly hostname: string,
    readonly address: string,
    readonly why: ForbiddenAddress
  ) {
    super(
      `target refused: ${describeForbidden(address, why)}${hostname !== stripAddress(address) ? ` (resolved from ${hostname})` : ""}`
    )
    this.name = "TargetRefusedError"
  }
}

export interface ResolvedAddress {
  readonly address: string
  readonly family: number
}

/** Resolves a host name to every address (an injectable seam for tests). */
export type LookupAll = (hostname: string) => Promise<ReadonlyArray<ResolvedAddress>>

export const systemLookup: LookupAll = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true })

export interface SafeDispatcherOptions {
  readonly allowInsecure: boolean
  readonly connectTimeoutMs: number
  /** defaults to the system resolver (`dns.lookup` with `all: true`) */
  readonly lookup?: LookupAll
  /** passed to the undici Agent (connections per origin, keep-alive…) */
  readonly agentOptions?: Omit<Agent.Options, "connect">
}

/**
 * The connector behind `safeDispatcher`: resolve, vet every address, dial the first vetted
 * one (trying the next on a connection error), SNI = the original host name.
 */
export const safeConnector = (options: Omit<SafeDispatcherOptions, "agentOptions">): buildConnector.connector => {
  const base = buildConnector({ timeout: options.connectTimeoutMs })
  const lookup = options.lookup ?? systemLookup
  return (connectOptions, callback) => {
    const hostname = stripAddress(connectOptions.hostname)
    const dial = (addresses: ReadonlyArray<string>, servername: string | undefined) => {
      const attempt = (i: number, lastError: Error | null) => {
        if (i >= addresses.length) {
          callback(lastError ?? new Error(`no address for ${hostname}`), null)
          return
        }
        const opts: buildConnector.Options = { ...connectOptions, hostname: addresses[i]! }
        if (servername !== undefined) opts.servername = servername
        base(opts, (err, socket) => {
          if (err) attempt(i + 1, err)
          else callback(null, socket)
        })
      }
      attempt(0, null)
    }
    if (isIP(hostname) !== 0) {
      const why = options.allowInsecure ? null : forbiddenAddress(hostname)
      if (why !== null) callback(new TargetRefusedError(hostname, hostname, why), null)
      else dial([hostname], connectOptions.servername)
      return
    }
    lookup(hostname).then(
      (resolved) => {
        if (resolved.length === 0) {
          callback(Object.assign(new Error(`host not found: ${hostname}`), { code: "ENOTFOUND" }), null)
          return
        }
        if (!options.allowInsecure) {
          for (const r of resolved) {
            const why = forbiddenAddress(r.address)
            if (why !== null) {
              callback(new TargetRefusedError(hostname, r.address, why), null)
              return
            }
          }
        }
        dial(
          resolved.map((r) => r.address),
          connectOptions.servername || hostname
        )
      },
      (err: unknown) => callback(err instanceof Error ? err : new Error(String(err)), null)
    )
  }
}

/**
 * An undici Agent that only ever dials vetted addresses (see the module comment). With
 * `allowInsecure` it still resolves and pins, but refuses nothing.
 */
export const safeDispatcher = (options: SafeDispatcherOptions): Agent =>
  new Agent({ ...options.agentOptions, connect: safeConnector(options) })
