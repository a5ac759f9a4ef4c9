/**
 * Dry-runs (issue 16): what a subscription would have sent over a past
 * window — `POST /v2/webhooks/dry-run` with a subscription's fields, `POST
 * /v2/webhooks/{id}/dry-run` for an existing webhook. The conditions are
 * validated and frozen as a create freezes them; the history readers
 * (`src/alerts/dryRun`) give the past evaluations and `Replay` steps the
 * evaluator's own state machine over them. Nothing is stored or sent.
 *
 * The window follows the history endpoints: the plan's history window
 * (`history_window_exceeded`), the data's coverage at the resolution, `to`
 * at most now. At `1m`: the minute history, minute-tier columns only, the
 * minute tier's tickers only, at most `MAX_MINUTE_DAYS` days.
 */
import { Clock, Effect, Either } from "effect"
import type { AuthenticatedKey } from "../../accounts/Accounts.js"
import { PLAN_LIMITS } from "../../accounts/plans.js"
import { dailyStretches, keptColumns } from "../../alerts/dryRun/dailyEvaluations.js"
import { minuteEvaluations } from "../../alerts/dryRun/minuteEvaluations.js"
import { type Evaluation, FORWARD_DAYS, forwardReturns, MAX_EVENTS, Replay } from "../../alerts/dryRun/replay.js"
import { columnByName } from "../../market/catalog.js"
import { HISTORY_START_DAY } from "../../market/history/coverage.js"
import { DAY_MS, isoDate } from "../../market/indicators/days.js"
import { Tickers } from "../../market/tickers/index.js"
import { type CompiledQuery, compileQuery } from "../../query/index.js"
import { pinnedTickers } from "../../query/pinned.js"
import type { Cadence, FiringOptions, WebhookRecord } from "../../store/webhooks.js"
import { compileContext, queryRejection } from "../common/compile.js"
import { drive } from "../common/drive.js"
import { liveSnapshot, marketData, walkStretches } from "../common/market.js"
import { trackedTicker } from "../common/tickers.js"
import { BadRequest, SignalNotAvailableAtInterval, TickerNotInMinuteTier } from "../errors.js"
import { minuteTier } from "../signals/history.js"
import { historyWindow, parseBound } from "../signals/window.js"
import { lookupUniverse, scopeSlots } from "../universes/resolve.js"
import { checkUniverse, freeze, freezeForTicker, queryOrRule, signalCondition } from "./conditions.js"
import { type FiringInput, newFiring } from "./firing.js"
import { checkCadence } from "./settings.js"

/** The window fields of every dry-run. */
export interface WindowInput {
  readonly from?: string | undefined
  readonly to?: string | undefined
  readonly resolution?: string | undefined
}

/** `POST /v2/webhooks/dry-run`: a subscription's fields (any of its three forms) and the window. */
export interface DryRunInput extends FiringInput, WindowInput {
  readonly q?: string | undefined
  readonly rule_id?: string | undefined
  readonly signal?: string | undefined
  readonly ticker?: string | null | undefined
  readonly condition?: string | undefined
  readonly universe?: string | null | undefined
  readonly cadence?: string | undefined
}

/** the longest `1m` window, in days */
export const MAX_MINUTE_DAYS = 7
/** the window when `from` is not given: the last year at `1d`, the last day at `1m` */
const DEFAULT_SPAN_MS = { "1d": 365 * DAY_MS, "1m": DAY_MS } as const

type Resolution = keyof typeof DEFAULT_SPAN_MS

/** A subscription as a dry-run replays it. */
interface Rule {
  readonly q: string
  readonly universeId: string | null
  readonly cadence: Cadence
  readonly firing: FiringOptions
}

/** The rule of a dry-run's subscription fields, validated and frozen as a create would (nothing stored). */
const ruleOf = (key: AuthenticatedKey, input: DryRunInput) =>
  Effect.gen(function* () {
    let q: string
    let universe: string | null | undefined = input.universe
    if (input.signal !== undefined) {
      const chosen = yield* signalCondition(key, input.signal, input.condition)
      q =
        input.ticker === undefined || input.ticker === null
          ? yield* freeze(key, chosen.expr, "condition")
          : yield* freezeForTicker(key, (yield* trackedTicker(input.ticker)).ticker, chosen.expr)
    } else if (input.ticker !== undefined && input.ticker !== null) {
      if (input.q !== undefined || input.rule_id !== undefined) {
        return yield* new BadRequest({
          message: "give one form: q or rule_id, ticker with condition, or signal (with an optional ticker)"
        })
      }
      const meta = yield* trackedTicker(input.ticker)
      const condition = input.condition?.trim() ?? ""
      if (condition === "") return yield* new BadRequest({ message: "condition is required with ticker" })
      q = yield* freezeForTicker(key, meta.ticker, condition)
    } else {
      const chosen = yield* queryOrRule(key, input)
      q = yield* freeze(key, chosen.text, "q")
      universe = chosen.universe
    }
    return {
      q,
      universeId: yield* checkUniverse(key.account.id, universe),
      cadence: input.cadence === undefined ? "realtime" : yield* checkCadence(input.cadence),
      firing: yield* newFiring(key, input)
    } satisfies Rule
  })

const checkResolution = (raw: string | undefined): Effect.Effect<Resolution, BadRequest> => {
  const r = (raw ?? "1d").trim().toLowerCase()
  return r === "1d" || r === "1m"
    ? Effect.succeed(r)
    : Effect.fail(new BadRequest({ message: `resolution must be 1d or 1m (got ${JSON.stringify(raw)})` }))
}

const compileStored = (text: string, parameter: string) =>
  Effect.flatMap(Tickers, (directory) =>
    Either.match(compileQuery(text, compileContext(directory)), {
      onLeft: (e) => Effect.fail(queryRejection(e, parameter)),
      onRight: Effect.succeed
    })
  )

/** 400 `signal_not_available_at_interval` when a condition reads a daily-only column at `1m`. */
const checkMinuteColumns = (compiled: ReadonlyArray<CompiledQuery>) => {
  const daily = [...new Set(compiled.flatMap((c) => c.columns))].filter((name) => {
    const def = columnByName.get(name)
    return def !== undefined && def.type !== "string" && !def.minuteTier
  })
  return daily.length === 0
    ? Effect.void
    : Effect.fail(
        new SignalNotAvailableAtInterval({
          message: `the conditions read daily-only columns (${daily.join(", ")}): use resolution 1d (minute-tier columns only at 1m)`
        })
      )
}

/** Drives a history reader and the replay, letting other fibers run every few steps; false past `deadline`. */
export const replay = (evaluations: Generator<Evaluation | undefined, void>, r: Replay, deadline: number) =>
  drive(evaluations, (e) => r.step(e), deadline)
/**
 * The longest a dry-run replays before it answers 400 (a request is answered 503 at 20 s, which
 * would invite a retry that can only fail again): the window or the scope is too large.
 */
export const DRY_RUN_BUDGET_MS = 17_000

/** One dry-run at a time per process: a replay of the whole market is seconds of CPU. */
const gate = Effect.unsafeMakeSemaphore(1)

const run = (key: AuthenticatedKey, rule: Rule, window: WindowInput) =>
  Effect.gen(function* () {
    const resolution = yield* checkResolution(window.resolution)
    const md = yield* marketData
    const live = yield* liveSnapshot
    const now = yield* Clock.currentTimeMillis
    const minute = resolution === "1m"
    const retentionStart = live.asOf - (md.options.minuteHistoryDays ?? 730) * DAY_MS
    if (window.from !== undefined && (yield* parseBound("from", window.from, false)) > now) {
      return yield* new BadRequest({ message: `from ${window.from} is in the future` })
    }
    const w = yield* historyWindow({
      plan: key.account.plan,
      maxDays: PLAN_LIMITS[key.account.plan].maxHistoryDays,
      now,
      coverageStartMs: minute ? retentionStart : HISTORY_START_DAY * DAY_MS,
      interval: resolution,
      from: window.from,
      to: window.to
    })
    const toMs = Math.min(w.toMs, now)
    const fromMs = window.from === undefined ? Math.max(w.fromMs, toMs - DEFAULT_SPAN_MS[resolution]) : w.fromMs
    if (toMs < fromMs) return yield* new BadRequest({ message: "to is before from" })
    if (minute && toMs - fromMs > MAX_MINUTE_DAYS * DAY_MS) {
      return yield* new BadRequest({
        message: `a 1m dry-run covers at most ${MAX_MINUTE_DAYS} days (asked ${Math.ceil((toMs - fromMs) / DAY_MS)}); use resolution 1d for longer windows`
      })
    }
    const q = yield* compileStored(rule.q, "q")
    const clear = rule.firing.clearQ === null ? undefined : yield* compileStored(rule.firing.clearQ, "clear_q")
    if (minute) yield* checkMinuteColumns(clear === undefined ? [q] : [q, clear])
    const fromDay = Math.floor(fromMs / DAY_MS)
    const toDay = Math.floor(toMs / DAY_MS)
    const universe =
      rule.universeId === null
        ? undefined
        : yield* lookupUniverse(key.account.id, rule.universeId, { from: fromDay, to: toDay })
    const scope = scopeSlots(md, universe)
    // the tickers walked: those that can match (pinned, or the scope's members over the window, or all),
    // and those the conditions name
    const walked = new Set<number>()
    const pinned = pinnedTickers(q.ast)
    if (pinned !== undefined) {
      const directory = yield* Tickers
      for (const t of pinned) {
        const slot = md.index.get(directory.lookup(t)?.ticker ?? t)
        if (slot !== undefined) walked.add(slot)
      }
    } else if (universe !== undefined) {
      for (let day = fromDay; day <= toDay; day++) for (const slot of scope(day) ?? []) walked.add(slot)
    } else for (let slot = 0; slot < md.size; slot++) walked.add(slot)
    if (minute) {
      const tier = minuteTier(live)
      const outside = [...walked].filter((slot) => !tier.has(md.tickers[slot]!.ticker))
      if (pinned !== undefined && outside.length === walked.size && walked.size > 0) {
        return yield* new TickerNotInMinuteTier({
          message: `${outside.map((s) => md.tickers[s]!.ticker).join(", ")} is not among the top 200 tickers by 30-day dollar volume that have minute bars; use resolution 1d`
        })
      }
      for (const slot of outside) walked.delete(slot)
    }
    for (const t of [...q.tickers, ...(clear?.tickers ?? [])]) {
      const slot = md.index.get(t)
      if (slot !== undefined) walked.add(slot)
    }
    const slots = [...walked].sort((a, b) => a - b)
    // a daily replay before the window reads the whole market's history since 2003 (503 while it is
    // built), a stretch of years at a time, each stretch's series reaching its forward returns' closes
    const stretches = minute ? [] : yield* walkStretches(md, slots, fromDay, toDay, FORWARD_DAYS, keptColumns(q, clear))
    const r = new Replay(rule.firing)
    const finished = yield* gate.withPermits(1)(
      replay(
        minute
          ? minuteEvaluations(md, {
              slots,
              q,
              clear,
              fromMs,
              toMs,
              cadence: rule.cadence,
              scope: (t) => scope(Math.floor(t / DAY_MS))
            })
          : dailyStretches(stretches, { slots, q, clear, scope }),
        r,
        now + DRY_RUN_BUDGET_MS
      )
    )
    if (!finished) {
      return yield* new BadRequest({
        message: `this dry-run takes longer than ${DRY_RUN_BUDGET_MS / 1000} s (${slots.length} tickers over ${toDay - fromDay + 1} days at ${resolution}${r.evaluations > 0 ? `; ${r.evaluations} evaluations done` : ""}): narrow the window, or scope it with a universe or a ticker`
      })
    }
    const tickerOf = (slot: number) => md.tickers[slot]!.ticker
    const at = (t: number) => (minute ? new Date(t).toISOString() : isoDate(Math.floor(t / DAY_MS) - 1))
    const tallies = [...r.tallies()].sort(
      ([a, x], [b, y]) => y.fires + y.clears - (x.fires + x.clears) || tickerOf(a).localeCompare(tickerOf(b))
    )
    return {
      as_of: new Date(now).toISOString(),
      q: rule.q,
      clear_q: rule.firing.clearQ,
      universe: rule.universeId,
      from: minute ? new Date(fromMs).toISOString() : isoDate(fromDay),
      to: minute ? new Date(toMs).toISOString() : isoDate(toDay),
      resolution,
      evaluations: r.evaluations,
      event_count: r.eventCount,
      truncated: r.eventCount > MAX_EVENTS,
      events: r.events.map((e) => ({
        at: at(e.at),
        sequence: e.sequence,
        type: e.type,
        tickers: Array.from(e.tickers, tickerOf),
        ...(e.repeated.length > 0 ? { repeated: Array.from(e.repeated, tickerOf) } : {})
      })),
      per_ticker: tallies.slice(0, MAX_TICKERS).map(([slot, t]) => ({
        ticker: tickerOf(slot),
        fires: t.fires,
        clears: t.clears,
        first_at: at(t.firstAt),
        last_at: at(t.lastAt)
      })),
      forward_returns: forwardReturns(r.signals)
    }
  })

/** the tickers `per_ticker` lists (most events first) */
const MAX_TICKERS = 100

/** `POST /v2/webhooks/dry-run` */
export const dryRunSubscription = (key: AuthenticatedKey, input: DryRunInput) =>
  Effect.flatMap(ruleOf(key, input), (rule) => run(key, rule, input))

/** `POST /v2/webhooks/{id}/dry-run`: the webhook as stored (its frozen conditions, scope, cadence, options). */
export const dryRunWebhook = (key: AuthenticatedKey, w: WebhookRecord, window: WindowInput) =>
  run(key, { q: w.q, universeId: w.universeId, cadence: w.cadence, firing: w.firing }, window)
