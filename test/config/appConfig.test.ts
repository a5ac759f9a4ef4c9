import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Duration, Effect, Either, Option, Redacted } from "effect"
import { appConfig, describeConfigError } from "../../src/config/AppConfig.js"

const load = (env: Record<string, string>) =>
  Effect.runSync(
    Effect.either(Effect.withConfigProvider(appConfig, ConfigProvider.fromMap(new Map(Object.entries(env)))))
  )

describe("configuration", () => {
  it("has the operator contract's defaults", () => {
    const config = Either.getOrThrow(load({}))
    expect(config.port).toBe(8080)
    expect(config.host).toBe("127.0.0.1")
    expect(config.dataDir).toBe("./.vigil")
    expect(Option.isNone(config.databaseUrl)).toBe(true)
    expect(Option.isNone(config.redisUrl)).toBe(true)
    expect(Duration.toMillis(config.refreshInterval)).toBe(60_000)
    expect(config.historyDays).toBeGreaterThanOrEqual(260)
    expect(Option.isNone(config.adminToken)).toBe(true)
    expect(config.webhookAllowInsecureTargets).toBe(false)
    expect(config.webhookRetrySchedule.map(Duration.toSeconds)).toEqual([30, 120, 600, 3600, 21600])
  })

  it("reads SIGNAL_FLAG_HISTORY, DEEP_HISTORY and PUSH_GATEWAY_URL, and names them when malformed", () => {
    const defaults = Either.getOrThrow(load({}))
    expect(defaults.signalFlagHistory).toBe("eager")
    expect(defaults.deepHistory).toBe("eager")
    expect(Either.getOrThrow(load({ DEEP_HISTORY: " Lazy " })).deepHistory).toBe("lazy")
    expect(Option.isNone(defaults.pushGatewayUrl)).toBe(true)
    const set = Either.getOrThrow(
      load({ SIGNAL_FLAG_HISTORY: "LAZY", PUSH_GATEWAY_URL: "https://push.example.com/send" })
    )
    expect(set.signalFlagHistory).toBe("lazy")
    expect(Option.map(set.pushGatewayUrl, Redacted.value)).toEqual(Option.some("https://push.example.com/send"))
    for (const [name, value] of [
      ["SIGNAL_FLAG_HISTORY", "sometimes"],
      ["DEEP_HISTORY", "later"],
      ["PUSH_GATEWAY_URL", "ftp://push.example.com"]
    ] as const) {
      const failed = load({ [name]: value })
      expect(Either.isLeft(failed)).toBe(true)
      if (Either.isLeft(failed)) expect(describeConfigError(failed.left)).toContain(name)
    }
  })

  it("reads VIGIL_ROLE, RUNNER_HOST and RUNNER_PORT; api and runner need the shared stores, named when missing", () => {
    const defaults = Either.getOrThrow(load({}))
    expect([defaults.role, defaults.runnerHost, defaults.runnerPort]).toEqual(["all", "127.0.0.1", 34431])
    const shared = { DATABASE_URL: "postgres://u@h:5432/db", REDIS_URL: "redis://h:6379" }
    const runner = Either.getOrThrow(
      load({ VIGIL_ROLE: "Runner", RUNNER_HOST: "10.0.0.5", RUNNER_PORT: "4000", PORT: "9100", ...shared })
    )
    expect([runner.role, runner.runnerHost, runner.runnerPort, runner.port]).toEqual(["runner", "10.0.0.5", 4000, 9100])
    expect(Either.getOrThrow(load({ VIGIL_ROLE: "api", ...shared })).role).toBe("api")
    // the runner needs the database only; an API instance the database and Redis
    expect(Either.isRight(load({ VIGIL_ROLE: "runner", DATABASE_URL: shared.DATABASE_URL }))).toBe(true)
    const message = (env: Record<string, string>) => {
      const failed = load(env)
      return Either.isLeft(failed) ? describeConfigError(failed.left) : "loaded"
    }
    expect(message({ VIGIL_ROLE: "api" })).toMatch(
      /DATABASE_URL must be set for VIGIL_ROLE=api[\s\S]*REDIS_URL must be set/
    )
    expect(message({ VIGIL_ROLE: "api", DATABASE_URL: shared.DATABASE_URL })).toContain("REDIS_URL must be set")
    expect(message({ VIGIL_ROLE: "runner", REDIS_URL: shared.REDIS_URL })).toContain(
      "DATABASE_URL must be set for VIGIL_ROLE=runner"
    )
    expect(message({ VIGIL_ROLE: "everything" })).toContain("VIGIL_ROLE must be one of all, api, runner")
    expect(message({ RUNNER_PORT: "0" })).toContain("RUNNER_PORT must be an integer from 1 to 65535")
    expect(message({ RUNNER_HOST: "a b" })).toContain("RUNNER_HOST must be")
    // the runner's transport address is never taken from HOST/PORT
    const apart = Either.getOrThrow(load({ HOST: "0.0.0.0", PORT: "8081" }))
    expect([apart.runnerHost, apart.runnerPort]).toEqual(["127.0.0.1", 34431])
  })

  it("reads every variable", () => {
    const config = Either.getOrThrow(
      load({
        PORT: "9000",
        HOST: "0.0.0.0",
        DATA_DIR: "/tmp/v",
        DATABASE_URL: "postgres://u@h:5432/db",
        REDIS_URL: "redis://127.0.0.1:6379",
        REFRESH_INTERVAL: "2s",
        HISTORY_DAYS: "300",
        MARKET_SEED: "7",
        ADMIN_TOKEN: "tok",
        WEBHOOK_ALLOW_INSECURE_TARGETS: "true",
        WEBHOOK_RETRY_SCHEDULE: "1s,500ms,2m",
        EVENT_RETENTION: "7d"
      })
    )
    expect(config.port).toBe(9000)
    expect(config.host).toBe("0.0.0.0")
    expect(Option.map(config.databaseUrl, Redacted.value)).toEqual(Option.some("postgres://u@h:5432/db"))
    expect(Duration.toMillis(config.refreshInterval)).toBe(2000)
    expect(config.historyDays).toBe(300)
    expect(config.marketSeed).toBe(7)
    expect(config.webhookAllowInsecureTargets).toBe(true)
    expect(config.webhookRetrySchedule.map(Duration.toMillis)).toEqual([1000, 500, 120_000])
    expect(Duration.toMillis(config.eventRetention)).toBe(7 * 86_400_000)
    expect(Duration.toMillis(Either.getOrThrow(load({})).eventRetention)).toBe(30 * 86_400_000)
  })

  it.each([
    ["PORT", "eighty", "PORT must be an integer from 0 to 65535"],
    ["PORT", "70000", "PORT must be an integer"],
    ["REFRESH_INTERVAL", "fast", "REFRESH_INTERVAL must be a duration"],
    ["REFRESH_INTERVAL", "0s", "REFRESH_INTERVAL must be a duration"],
    ["DATABASE_URL", "mysql://x", "DATABASE_URL must be a URL starting with postgres://"],
    ["REDIS_URL", "nope", "REDIS_URL must be a URL starting with redis://"],
    ["HISTORY_DAYS", "-3", "HISTORY_DAYS must be an integer"],
    ["MARKET_SEED", "1.5", "MARKET_SEED must be an integer"],
    ["WEBHOOK_ALLOW_INSECURE_TARGETS", "maybe", "WEBHOOK_ALLOW_INSECURE_TARGETS must be true or false"],
    ["WEBHOOK_RETRY_SCHEDULE", "30s,,2m", "WEBHOOK_RETRY_SCHEDULE must be a comma-separated list of durations"],
    ["EVENT_RETENTION", "a month", "EVENT_RETENTION must be a duration such as 30d"]
  ])("refuses %s=%s with a message naming the variable", (name, value, expected) => {
    const result = load({ [name]: value })
    expect(Either.isLeft(result)).toBe(true)
    if (Either.isLeft(result)) expect(describeConfigError(result.left)).toContain(expected)
  })
})

describe("empty variables", () => {
  it("count as not set", () => {
    const config = Either.getOrThrow(load({ ADMIN_TOKEN: "", DATABASE_URL: "", PORT: "" }))
    expect(Option.isNone(config.adminToken)).toBe(true)
    expect(Option.isNone(config.databaseUrl)).toBe(true)
    expect(config.port).toBe(8080)
  })
})
