/**
 * `GET /v2/webhooks/{id}/explain?ticker=`: where a ticker stands on a webhook after its last
 * evaluation — its state and a sentence (`explainTicker`), and the frozen `q` evaluated at the
 * ticker's live row (`explainNode`, the evaluator's own compiled query) — its ranks among the
 * webhook's universe and the ticker, `clear_q`'s among the whole market, as the evaluator ranks them.
 */
import { Clock, Effect, Either } from "effect"
import type { AuthenticatedKey } from "../../accounts/Accounts.js"
import { explainTicker } from "../../alerts/firing/explain.js"
import { memoryOf } from "../../alerts/firing/machine.js"
import type { Snapshot } from "../../market/snapshot.js"
import { Tickers } from "../../market/tickers/index.js"
import { type ExplainNode, explainNode } from "../../query/explain.js"
import { compileQuery } from "../../query/index.js"
import { effectiveLastEvaluated } from "../../store/webhooks.js"
import { compileContext, queryRejection } from "../common/compile.js"
import { liveSnapshot, marketData } from "../common/market.js"
import { trackedTicker } from "../common/tickers.js"
import { dayOf, resolveUniverse, rowsOfTickers } from "../universes/resolve.js"
import { notFound, ownedWithTicks } from "./access.js"

/** The live members of a webhook's universe (none when it no longer exists). */
export const webhookMembers = (accountId: string, universeId: string, snapshot: Snapshot) =>
  Effect.gen(function* () {
    return yield* resolveUniverse(yield* marketData, accountId, universeId, dayOf(snapshot.asOf), false).pipe(
      Effect.catchTag("UniverseNotFound", () => Effect.succeed([] as ReadonlyArray<string>))
    )
  })

/** Why `ticker` is where it is on the webhook after its last evaluation (`explainTicker`). */
export const explain = (key: AuthenticatedKey, id: string, ticker: string) =>
  Effect.gen(function* () {
    const { record: w, ticks } = yield* ownedWithTicks(key, id)
    const meta = yield* trackedTicker(ticker)
    const snapshot = yield* liveSnapshot
    const row = snapshot.index.get(meta.ticker)
    if (row === undefined) return yield* notFound("ticker", meta.ticker)
    const context = compileContext(yield* Tickers)
    const compiled = compileQuery(w.q, context)
    if (Either.isLeft(compiled)) return yield* queryRejection(compiled.left, "q")
    let clearTree: ExplainNode | undefined
    if (w.firing.clearQ !== null) {
      const clear = compileQuery(w.firing.clearQ, context)
      if (Either.isLeft(clear)) return yield* queryRejection(clear.left, "clear_q")
      clearTree = explainNode(clear.right.ir, snapshot, row)
    }
    let inScope = true
    // q's ranks (PCT_RANK, RANK, ZSCORE) among the universe and the ticker; clear_q's among the market
    let scope: Int32Array | undefined
    if (w.universeId !== null) {
      const members = yield* webhookMembers(key.account.id, w.universeId, snapshot)
      inScope = members.includes(meta.ticker)
      if (compiled.right.crossSectional) scope = rowsOfTickers(snapshot, inScope ? members : [...members, meta.ticker])
    }
    const now = yield* Clock.currentTimeMillis
    const memory = memoryOf(w.memory, meta.ticker)
    const tree = explainNode(compiled.right.ir, snapshot, row, scope)
    const { state, reason } = explainTicker({
      firing: w.firing,
      inside: w.lastMatchSet.includes(meta.ticker),
      memory,
      now,
      snoozedUntil: w.snoozedUntil,
      inScope,
      universeId: w.universeId,
      tree,
      clearTree
    })
    const last = effectiveLastEvaluated(w, ticks)
    return {
      as_of: new Date(now).toISOString(),
      webhook_id: w.id,
      ticker: meta.ticker,
      evaluated_at: last === null ? null : new Date(last).toISOString(),
      data_as_of: new Date(snapshot.asOf).toISOString(),
      state,
      reason,
      tree
    }
  })
