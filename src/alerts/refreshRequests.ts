/**
 * Refreshes asked for through an API process (`VIGIL_ROLE=api`, `POST /admin/refresh`): every
 * evaluating process refreshes its market; each that evaluated the refresh records it for the
 * slices it holds (all of them under the lease), and the API process answers once every slice
 * has been evaluated for its request (`client.ts`). A request made before this process started is
 * answered once at start (its slices may be ones nobody else holds); a runner that takes slices
 * after answering evaluates and records those too.
 */
import { Duration, Effect, Schedule } from "effect"
import type { Market } from "../market/Market.js"
import type { EvaluatorState } from "../store/evaluatorState.js"
import type { EvaluationResult } from "./Alerts.js"
import { SLICES } from "./slice.js"

/** how often an evaluating process looks for refreshes asked for through API processes (ms) */
export const REFRESH_POLL_MS = 250

const EVERY_SLICE: ReadonlyArray<number> = Array.from({ length: SLICES }, (_, n) => n)

/** The loop that answers refresh requests (to fork for the evaluator's lifetime). */
export const answerRefreshRequests = (deps: {
  readonly store: EvaluatorState
  readonly market: Market
  readonly awaitEvaluated: (asOf: number) => Effect.Effect<EvaluationResult>
  /** the slices this process evaluates now ("all": every one) */
  readonly held: () => ReadonlySet<number> | "all"
}) => {
  let handled = 0
  /** the slices evaluated for `handled` */
  let marked = new Set<number>()
  const heldList = () => {
    const h = deps.held()
    return h === "all" ? EVERY_SLICE : [...h]
  }
  const answer = Effect.gen(function* () {
    // before the migrations ran the table is not there: nothing to answer yet
    const wanted = yield* Effect.orElseSucceed(deps.store.refreshRequested, () => handled)
    if (wanted === 0 || (wanted <= handled && heldList().every((n) => marked.has(n)))) return
    const snapshot = yield* deps.market.refreshNow
    const r = yield* deps.awaitEvaluated(snapshot.asOf).pipe(Effect.timeout(Duration.seconds(60)))
    if (!r.ok || r.skipped === true) return
    const slices = heldList()
    yield* deps.store.markRefreshed(wanted, slices)
    if (wanted > handled) marked = new Set()
    handled = wanted
    for (const n of slices) marked.add(n)
  }).pipe(Effect.catchAllCause((cause) => Effect.logWarning("a requested refresh was not answered", cause)))
  return Effect.repeat(answer, Schedule.spaced(Duration.millis(REFRESH_POLL_MS)))
}
