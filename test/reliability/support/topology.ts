/**
 * The processes a reliability proof runs and kills: one service (`all`, the crash proof), or an
 * API process and runners sharing the webhook slices (`proof:cluster`). The proof talks to
 * `api()`; `kill` stops one process — the service, or a runner — with a signal and starts it
 * again, measuring, for a runner, what the cluster did meanwhile.
 */
import { rmSync } from "node:fs"
import type { MarketChoice } from "../../support/sampleTickers.js"
import { newDataDir, type RunningServer, startServer, waitReady } from "../../support/server.js"
import type { Inspector } from "./database.js"

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** What one kill of a runner showed (times in ms from the signal; NaN: not within the bound). */
export interface RunnerKill {
  readonly signal: "SIGKILL" | "SIGTERM"
  readonly mode: string
  /** the victim ran the refresh-tick singleton */
  readonly singleton: boolean
  /** until the other runners held all 1,024 slices */
  readonly handoverMs: number
  /** until every slice had committed a tick issued after the signal */
  readonly failoverMs: number
  /** ticks skipped by slices meanwhile (`slice_ticks.missed`) */
  readonly ticksMissed: number
  /** the restarted runner: from joining the cluster (its market loaded) to holding slices, and how many after 1.5 s */
  readonly takeBackMs: number
  readonly takenBack: number
  /** the restart, to ready */
  readonly restartMs: number
}

export interface Topology {
  /** the process that serves the API (undefined while the service is down: single only) */
  readonly api: () => RunningServer | undefined
  readonly start: (env?: Record<string, string>) => Promise<void>
  readonly stop: () => Promise<void>
  /** SIGKILLs whatever still runs and removes the data directories */
  readonly destroy: () => Promise<void>
}

const gauge = async (server: RunningServer, name: string): Promise<number> => {
  try {
    const text = await (await fetch(`${server.url}/metrics`, { signal: AbortSignal.timeout(2_000) })).text()
    return Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1] ?? Number.NaN)
  } catch {
    return Number.NaN
  }
}

/** the time of the first log line with `message` (epoch ms; NaN: none) */
const stamp = (logs: string, message: string): number => {
  const at = logs.indexOf(`"message":${JSON.stringify(message)}`)
  if (at < 0) return Number.NaN
  const line = logs.slice(at, logs.indexOf("\n", at) >>> 0)
  return Date.parse(/"timestamp":"([^"]+)"/.exec(line)?.[1] ?? "")
}

/**
 * A slow failover prints what the surviving runners logged meanwhile (warnings, errors, slice
 * moves, slow evaluations): the proof's figure alone does not say where the time went.
 */
const traceSlowFailover = (running: ReadonlyArray<RunningServer | undefined>, t0: number) => {
  running.forEach((s, n) => {
    if (s === undefined) return
    const lines = s
      .logs()
      .split("\n")
      .filter((l) => {
        const at = Date.parse(/"timestamp":"([^"]+)"/.exec(l)?.[1] ?? "")
        return at >= t0 - 2_000 && /"logLevel":"(WARN|WARNING|ERROR|FATAL)"|slices|slow|Shard|unhealthy/i.test(l)
      })
    console.log(`[topology] slow failover: runner ${n} logged ${lines.length} lines since the signal:`)
    for (const l of lines.slice(0, 40)) console.log(`[topology]   ${l.slice(0, 600)}`)
  })
}

const exited = (s: RunningServer) =>
  new Promise((r) =>
    s.process.exitCode !== null || s.process.signalCode !== null ? r(null) : s.process.once("exit", r)
  )

const start = async (env: Record<string, string>, market: MarketChoice) => {
  const s = await startServer(env, 300_000, { market })
  await waitReady(s, 300_000)
  return s
}

/** One service process (`VIGIL_ROLE=all`). */
export const singleService = (baseEnv: Record<string, string>, market: MarketChoice = "all") => {
  let server: RunningServer | undefined
  return {
    api: () => server,
    start: async (env: Record<string, string> = {}) => {
      server = await start({ ...baseEnv, ...env }, market)
    },
    stop: async () => {
      await server?.stop()
      server = undefined
    },
    /** SIGKILLs the service (`before` runs once it is gone) and starts it again: the restart time */
    kill: async (before: () => void = () => {}) => {
      const victim = server!
      server = undefined
      victim.process.kill("SIGKILL")
      await exited(victim)
      before()
      const t0 = Date.now()
      server = await start(baseEnv, market)
      return Date.now() - t0
    },
    destroy: async () => {
      if (server !== undefined) {
        server.process.kill("SIGKILL")
        await exited(server)
      }
    }
  }
}

/** An API process and `runners` runners on one PostgreSQL database (`db` inspects it). */
export const clusterOf = (
  baseEnv: Record<string, string>,
  runners: number,
  db: () => Promise<Inspector>,
  market: MarketChoice = "all"
) => {
  let api: RunningServer | undefined
  const running: Array<RunningServer | undefined> = []
  const dataDirs: Array<string> = []
  const envOf = (role: string, env: Record<string, string>) => {
    const dir = newDataDir({ DATABASE_URL: baseEnv.DATABASE_URL })
    dataDirs.push(dir)
    return { ...baseEnv, ...env, VIGIL_ROLE: role, DATA_DIR: dir }
  }
  let lastEnv: Record<string, string> = {}
  const held = async (except: number) => {
    let sum = 0
    for (let i = 0; i < running.length; i++) {
      if (i === except || running[i] === undefined) continue
      const n = await gauge(running[i]!, "webhook_slices_held")
      if (Number.isFinite(n)) sum += n
    }
    return sum
  }
  return {
    api: () => api,
    runners: () => running,
    start: async (env: Record<string, string> = {}) => {
      lastEnv = env
      // one after the other: each loads its market (seconds of CPU) before joining
      for (let i = 0; i < runners; i++) running[i] = await start(envOf("runner", env), market)
      api = await start(envOf("api", env), market)
    },
    stop: async () => {
      await api?.stop()
      api = undefined
      for (let i = 0; i < running.length; i++) {
        await running[i]?.stop()
        running[i] = undefined
      }
    },
    /** The runner running the refresh-tick singleton (−1: none found). */
    singletonRunner: async () => {
      for (let i = 0; i < running.length; i++) {
        if (running[i] !== undefined && (await gauge(running[i]!, "refresh_tick_singleton")) === 1) return i
      }
      return -1
    },
    /** Signals runner `i`, measures the handover, the failover and the ticks missed, and restarts it. */
    kill: async (i: number, signal: "SIGKILL" | "SIGTERM", mode: string): Promise<RunnerKill> => {
      const victim = running[i]!
      const singleton = (await gauge(victim, "refresh_tick_singleton")) === 1
      const inspector = await db()
      try {
        const [before] = await inspector.query(
          "SELECT coalesce(max(seq), 0)::int AS seq, (SELECT coalesce(sum(missed), 0)::int FROM slice_ticks) AS missed FROM ticks"
        )
        const t0 = Date.now()
        victim.process.kill(signal)
        let handoverMs = Number.NaN
        let failoverMs = Number.NaN
        const bound = t0 + 60_000
        while (Date.now() < bound && (Number.isNaN(handoverMs) || Number.isNaN(failoverMs))) {
          if (Number.isNaN(handoverMs) && (await held(i)) === 1024) handoverMs = Date.now() - t0
          if (Number.isNaN(failoverMs)) {
            const [s] = await inspector.query(
              "SELECT count(*)::int AS n, coalesce(min(seq), 0)::int AS lo FROM slice_ticks"
            )
            if (s.n === 1024 && s.lo > before.seq) failoverMs = Date.now() - t0
          }
          await sleep(50)
        }
        await exited(victim)
        running[i] = undefined
        if (!(handoverMs <= 10_000) || !(failoverMs <= 12_000)) traceSlowFailover(running, t0)
        const [after] = await inspector.query("SELECT coalesce(sum(missed), 0)::int AS missed FROM slice_ticks")
        const r0 = Date.now()
        const restarted = await start(envOf("runner", lastEnv), market)
        running[i] = restarted
        const restartMs = Date.now() - r0
        // it joins the cluster once its market is loaded, and is ready once it holds slices: from the
        // join to its first slices, read from its own log lines
        // (its log lines come through a pipe: they may arrive after its /readyz answer)
        for (let waited = 0; waited < 5_000 && !restarted.logs().includes('"webhook slices held"'); waited += 50) {
          await sleep(50)
        }
        const takeBackMs = stamp(restarted.logs(), "webhook slices held") - stamp(restarted.logs(), "market ready")
        if (Number.isNaN(takeBackMs)) {
          const lines = restarted.logs().split("\n")
          console.log(
            `[topology] no join/held lines in the restarted runner's log (${lines.length} lines): ${lines
              .filter((l) => /ready|slices|cluster/.test(l))
              .slice(0, 12)
              .join("\n")}`
          )
        }
        // its share settles over the next assignment refreshes
        await sleep(1_500)
        const takenBack = await gauge(restarted, "webhook_slices_held")
        return {
          signal,
          mode,
          singleton,
          handoverMs,
          failoverMs,
          ticksMissed: after.missed - before.missed,
          takeBackMs,
          takenBack,
          restartMs
        }
      } finally {
        await inspector.close()
      }
    },
    destroy: async () => {
      for (const s of [api, ...running]) {
        if (s === undefined) continue
        s.process.kill("SIGKILL")
        await exited(s)
      }
      for (const d of dataDirs) rmSync(d, { recursive: true, force: true })
    }
  }
}
