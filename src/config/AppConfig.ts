/**
 * One typed configuration for the whole service, read from the environment.
 * Every variable of the operator contract is here; an invalid value fails the
 * start with a message that names the variable and the expected form.
 */
import { Config, ConfigError, Context, Duration, Either, Layer, Option, Redacted } from "effect"

/** What a process runs (operator contract, `VIGIL_ROLE`). */
export type Role = "all" | "api" | "runner"

export interface AppConfigShape {
  /** VIGIL_ROLE: `all` (HTTP API, evaluation and delivery), `api` (HTTP only) or `runner` (evaluation and delivery, probes only) */
  readonly role: Role
  /** RUNNER_HOST / RUNNER_PORT: the address of this runner's cluster transport (never HOST/PORT) */
  readonly runnerHost: string
  readonly runnerPort: number
  readonly port: number
  readonly host: string
  readonly dataDir: string
  readonly databaseUrl: Option.Option<Redacted.Redacted<string>>
  readonly redisUrl: Option.Option<Redacted.Redacted<string>>
  readonly refreshInterval: Duration.Duration
  readonly historyDays: number
  readonly marketSeed: number
  readonly adminToken: Option.Option<Redacted.Redacted<string>>
  readonly webhookAllowInsecureTargets: boolean
  readonly webhookRetrySchedule: ReadonlyArray<Duration.Duration>
  readonly logLevel: "debug" | "info" | "warning" | "error"
  /** REPLAY_FILE / REPLAY_TICKER / REPLAY_START: replay a real bar file instead of simulating those tickers */
  /** MINUTE_HISTORY_DAYS: how far back 1m/1h history reaches (calendar days) */
  readonly minuteHistoryDays: number
  /** SIGNAL_FLAG_HISTORY: build the stored flag history (signal stats/events) at start (eager) or on first use (lazy) */
  readonly signalFlagHistory: "eager" | "lazy"
  /** DEEP_HISTORY: build the whole market's grid of states before the window (as-of scans since 2003) once ready (eager) or on first use (lazy) */
  readonly deepHistory: "eager" | "lazy"
  /** PUSH_GATEWAY_URL: where mobile pushes are POSTed; unset = the recording gateway (pushes kept in memory and logged) */
  readonly pushGatewayUrl: Option.Option<Redacted.Redacted<string>>
  /** EVENT_RETENTION: how long each webhook's event feed keeps its events */
  readonly eventRetention: Duration.Duration
  /** DASHBOARD_URL: the dashboard's public base (https: its session cookie is `Secure`; events carry `chart_url`) */
  readonly dashboardUrl: Option.Option<URL>
  /** MCP_TOOLS: the tools `/mcp` and `vigil-mcp` offer: `all` (default) or `read` (only those that change nothing) */
  readonly mcpTools: "all" | "read"
  readonly replay: Option.Option<{ readonly file: string; readonly ticker: string | undefined; readonly start: string }>
}

/** Durations are written `<n><unit>` with unit ms, s, m, h or d (e.g. `500ms`, `2s`, `1m`, `6h`, `30d`). */
export const parseDuration = (text: string): Option.Option<Duration.Duration> => {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$/.exec(text)
  if (!m) return Option.none()
  const n = Number(m[1])
  const unit = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as "ms" | "s" | "m" | "h" | "d"]
  const millis = n * unit
  return millis > 0 && Number.isFinite(millis) ? Option.some(Duration.millis(millis)) : Option.none()
}

const invalid = (name: string, expected: string, got: string) =>
  ConfigError.InvalidData([name], `${name} must be ${expected} (got ${JSON.stringify(got)})`)

/** A variable set to the empty string counts as not set (as `VAR=` in a compose file means): its default applies. */
const withForm = <A>(name: string, expected: string, parse: (raw: string) => Option.Option<A>) =>
  Config.string(name).pipe(
    Config.mapOrFail((raw) =>
      raw === "" ? Either.left(ConfigError.MissingData([name], `${name} is empty`)) : Either.right(raw)
    ),
    Config.mapOrFail((raw) =>
      Option.match(parse(raw), {
        onNone: () => Either.left(invalid(name, expected, raw)),
        onSome: Either.right
      })
    )
  )

const intIn = (name: string, min: number, max: number) =>
  withForm(name, `an integer from ${min} to ${max}`, (raw) => {
    if (!/^\s*-?\d+\s*$/.test(raw)) return Option.none()
    const n = Number(raw)
    return n >= min && n <= max ? Option.some(n) : Option.none()
  })

const urlWith = (name: string, schemes: ReadonlyArray<string>) =>
  withForm(name, `a URL starting with ${schemes.map((s) => `${s}://`).join(" or ")}`, (raw) => {
    try {
      const url = new URL(raw)
      return schemes.includes(url.protocol.replace(/:$/, "")) ? Option.some(Redacted.make(raw)) : Option.none()
    } catch {
      return Option.none()
    }
  })

const bool = (name: string) =>
  withForm(name, "true or false", (raw) => {
    const v = raw.trim().toLowerCase()
    return v === "true" || v === "1"
      ? Option.some(true)
      : v === "false" || v === "0"
        ? Option.some(false)
        : Option.none()
  })

const durationList = (name: string) =>
  withForm(name, "a comma-separated list of durations such as 30s,2m,10m,1h,6h", (raw) => {
    const parts = raw.split(",").map((p) => parseDuration(p))
    return parts.length > 0 && parts.every(Option.isSome) ? Option.some(parts.map((p) => p.value)) : Option.none()
  })

export const DEFAULT_RETRY_SCHEDULE = "30s,2m,10m,1h,6h"

const bindAddress = (name: string) =>
  withForm(name, "a bind address such as 127.0.0.1 or 0.0.0.0", (raw) =>
    raw.trim().length > 0 && !/\s/.test(raw.trim()) ? Option.some(raw.trim()) : Option.none()
  )

const fields = Config.all({
  role: Config.withDefault(
    withForm("VIGIL_ROLE", "one of all, api, runner", (raw) => {
      const v = raw.trim().toLowerCase()
      return v === "all" || v === "api" || v === "runner" ? Option.some(v) : Option.none()
    }),
    "all" as const
  ),
  runnerHost: Config.withDefault(bindAddress("RUNNER_HOST"), "127.0.0.1"),
  runnerPort: Config.withDefault(intIn("RUNNER_PORT", 1, 65535), 34431),
  port: Config.withDefault(intIn("PORT", 0, 65535), 8080),
  host: Config.withDefault(bindAddress("HOST"), "127.0.0.1"),
  dataDir: Config.withDefault(
    withForm("DATA_DIR", "a directory path", (raw) => (raw.trim() ? Option.some(raw.trim()) : Option.none())),
    "./.vigil"
  ),
  databaseUrl: Config.option(urlWith("DATABASE_URL", ["postgres", "postgresql"])),
  redisUrl: Config.option(urlWith("REDIS_URL", ["redis", "rediss"])),
  refreshInterval: Config.withDefault(
    withForm("REFRESH_INTERVAL", "a duration such as 60s, 2s, 500ms or 1m", parseDuration),
    Duration.seconds(60)
  ),
  historyDays: Config.withDefault(intIn("HISTORY_DAYS", 1, 5000), 260),
  marketSeed: Config.withDefault(intIn("MARKET_SEED", 0, 2 ** 31 - 1), 20260526),
  adminToken: Config.option(
    withForm("ADMIN_TOKEN", "a non-empty token without spaces", (raw) =>
      raw.length > 0 && !/\s/.test(raw) ? Option.some(Redacted.make(raw)) : Option.none()
    )
  ),
  webhookAllowInsecureTargets: Config.withDefault(bool("WEBHOOK_ALLOW_INSECURE_TARGETS"), false),
  webhookRetrySchedule: Config.withDefault(
    durationList("WEBHOOK_RETRY_SCHEDULE"),
    DEFAULT_RETRY_SCHEDULE.split(",").map((p) => Option.getOrThrow(parseDuration(p)))
  ),
  minuteHistoryDays: Config.withDefault(intIn("MINUTE_HISTORY_DAYS", 1, 3650), 730),
  signalFlagHistory: Config.withDefault(
    withForm("SIGNAL_FLAG_HISTORY", "eager or lazy", (raw) => {
      const v = raw.trim().toLowerCase()
      return v === "eager" || v === "lazy" ? Option.some(v) : Option.none()
    }),
    "eager" as const
  ),
  deepHistory: Config.withDefault(
    withForm("DEEP_HISTORY", "eager or lazy", (raw) => {
      const v = raw.trim().toLowerCase()
      return v === "eager" || v === "lazy" ? Option.some(v) : Option.none()
    }),
    "eager" as const
  ),
  pushGatewayUrl: Config.option(urlWith("PUSH_GATEWAY_URL", ["http", "https"])),
  eventRetention: Config.withDefault(
    withForm("EVENT_RETENTION", "a duration such as 30d or 12h", parseDuration),
    Duration.days(30)
  ),
  dashboardUrl: Config.option(
    withForm("DASHBOARD_URL", "an http(s) URL such as https://vigil.example.com", (raw) => {
      try {
        const url = new URL(raw.trim())
        return url.protocol === "https:" || url.protocol === "http:" ? Option.some(url) : Option.none()
      } catch {
        return Option.none()
      }
    })
  ),
  mcpTools: Config.withDefault(
    withForm("MCP_TOOLS", "all or read", (raw) => {
      const v = raw.trim().toLowerCase()
      return v === "all" || v === "read" ? Option.some(v as "all" | "read") : Option.none()
    }),
    "all" as const
  ),
  replay: Config.option(
    Config.all({
      file: withForm("REPLAY_FILE", "the path of a daily bar CSV file", (raw) => Option.some(raw.trim())),
      ticker: Config.option(
        withForm("REPLAY_TICKER", "a tracked ticker symbol", (raw) => Option.some(raw.trim()))
      ).pipe(Config.map(Option.getOrUndefined)),
      start: Config.withDefault(
        withForm("REPLAY_START", "a date YYYY-MM-DD", (raw) =>
          /^\d{4}-\d{2}-\d{2}$/.test(raw.trim()) && !Number.isNaN(Date.parse(raw.trim()))
            ? Option.some(raw.trim())
            : Option.none()
        ),
        "2026-01-02"
      )
    })
  ),
  logLevel: Config.withDefault(
    withForm("LOG_LEVEL", "one of debug, info, warning, error", (raw) => {
      const v = raw.trim().toLowerCase()
      return v === "debug" || v === "info" || v === "warning" || v === "error" ? Option.some(v) : Option.none()
    }),
    "info" as const
  )
})

/**
 * The variables a role needs: processes of the `api` and `runner` roles are several sharing one
 * PostgreSQL database (`DATABASE_URL`: webhooks, states, deliveries and the evaluator's lease
 * live there; each process's embedded store would be its own), and API instances share rate
 * limits and key revocations through `REDIS_URL`.
 */
export const roleRequirements = (c: AppConfigShape): Either.Either<AppConfigShape, ConfigError.ConfigError> => {
  if (c.role === "all") return Either.right(c)
  const missing: Array<ConfigError.ConfigError> = []
  if (Option.isNone(c.databaseUrl)) {
    missing.push(
      ConfigError.MissingData(
        ["DATABASE_URL"],
        `DATABASE_URL must be set for VIGIL_ROLE=${c.role}: the processes of a split deployment share one PostgreSQL database`
      )
    )
  }
  if (c.role === "api" && Option.isNone(c.redisUrl)) {
    missing.push(
      ConfigError.MissingData(
        ["REDIS_URL"],
        "REDIS_URL must be set for VIGIL_ROLE=api: API instances share rate limits and key revocations through Redis"
      )
    )
  }
  return missing.length === 0 ? Either.right(c) : Either.left(missing.reduce((a, b) => ConfigError.And(a, b)))
}

export const appConfig: Config.Config<AppConfigShape> = fields.pipe(Config.mapOrFail(roleRequirements))

export class AppConfig extends Context.Tag("vigil/AppConfig")<AppConfig, AppConfigShape>() {
  static readonly layer = Layer.effect(AppConfig, appConfig)
  static readonly make = (overrides: Partial<AppConfigShape> = {}): AppConfigShape => ({
    role: "all",
    runnerHost: "127.0.0.1",
    runnerPort: 34431,
    port: 0,
    host: "127.0.0.1",
    dataDir: "./.vigil",
    databaseUrl: Option.none(),
    redisUrl: Option.none(),
    refreshInterval: Duration.seconds(60),
    historyDays: 260,
    marketSeed: 20260526,
    adminToken: Option.none(),
    webhookAllowInsecureTargets: false,
    webhookRetrySchedule: DEFAULT_RETRY_SCHEDULE.split(",").map((p) => Option.getOrThrow(parseDuration(p))),
    logLevel: "info",
    minuteHistoryDays: 730,
    signalFlagHistory: "eager",
    deepHistory: "lazy",
    pushGatewayUrl: Option.none(),
    eventRetention: Duration.days(30),
    dashboardUrl: Option.none(),
    mcpTools: "all",
    replay: Option.none(),
    ...overrides
  })
  static readonly layerWith = (overrides: Partial<AppConfigShape> = {}) =>
    Layer.succeed(AppConfig, AppConfig.make(overrides))
}

/** Renders a ConfigError as one line per problem, naming each variable. */
export const describeConfigError = (error: ConfigError.ConfigError): string => {
  const lines: Array<string> = []
  const walk = (e: ConfigError.ConfigError): void => {
    switch (e._op) {
      case "And":
      case "Or":
        walk(e.left)
        walk(e.right)
        return
      case "InvalidData":
      case "MissingData":
      case "SourceUnavailable":
      case "Unsupported":
        lines.push(e.message)
        return
    }
  }
  walk(error)
  return [...new Set(lines)].join("\n")
}
