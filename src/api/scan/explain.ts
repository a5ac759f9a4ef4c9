/**
 * `POST /v2/scan/explain`: why one ticker is or is not in a screen — `q`
 * compiled for the account as a scan compiles it, evaluated at the ticker's
 * row of the same snapshot (live, or as of `asof`) by `explainNode`; ranks (PCT_RANK, RANK, ZSCORE)
 * among the universe's members and the ticker, as the scan would rank it were it a member.
 */
import { Effect, Either } from "effect"
import { Tickers } from "../../market/tickers/index.js"
import { because, explainNode } from "../../query/explain.js"
import { compileFor } from "../common/compile.js"
import { marketData } from "../common/market.js"
import { parseDate } from "../common/params.js"
import { trackedTicker } from "../common/tickers.js"
import { BadRequest, InvalidQuery, NotFound } from "../errors.js"
import { CurrentKey } from "../middleware/Authentication.js"
import { resolveUniverse, rowsOfTickers } from "../universes/resolve.js"
import { MAX_Q_LENGTH } from "./params.js"
import { scanSnapshot } from "./snapshot.js"

export interface ExplainScanInput {
  readonly q: string
  readonly ticker: string
  readonly universe?: string | undefined
  readonly asof?: string | undefined
}

export const explainScan = (input: ExplainScanInput) =>
  Effect.gen(function* () {
    const key = yield* CurrentKey
    if (input.q.trim() === "") return yield* new BadRequest({ message: "q must not be empty" })
    if (input.q.length > MAX_Q_LENGTH) {
      return yield* new InvalidQuery({
        message: `q is ${input.q.length} characters; at most ${MAX_Q_LENGTH} are allowed`
      })
    }
    const directory = yield* Tickers
    const meta = yield* trackedTicker(input.ticker)
    const asof =
      input.asof === undefined
        ? undefined
        : yield* Either.match(parseDate("asof", input.asof), {
            onLeft: (e) => Effect.fail(e),
            onRight: (d) => Effect.succeed(d)
          })
    const compiled = yield* compileFor(input.q, directory, key.account)
    const { md, snapshot, day } = yield* scanSnapshot(key, asof)
    const row = snapshot.index.get(meta.ticker)
    if (row === undefined) {
      return yield* new NotFound({
        message: `${meta.ticker} has no data ${asof === undefined ? "now" : `as of ${asof}`}`
      })
    }
    let inUniverse = true
    // cross-sectional functions rank among the universe and the ticker explained (default: the market)
    let scope: Int32Array | undefined
    if (input.universe !== undefined) {
      const data = md ?? (yield* marketData)
      const members = yield* resolveUniverse(data, key.account.id, input.universe, day, asof !== undefined)
      inUniverse = members.includes(meta.ticker)
      if (compiled.crossSectional) scope = rowsOfTickers(snapshot, inUniverse ? members : [...members, meta.ticker])
    }
    const tree = explainNode(compiled.ir, snapshot, row, scope)
    const matched = inUniverse && tree.result === true
    return {
      as_of: asof ?? new Date(snapshot.asOf).toISOString(),
      ticker: meta.ticker,
      in_universe: inUniverse,
      matched,
      reason: inUniverse ? because(tree) : `${meta.ticker} is outside the universe ${input.universe}`,
      tree
    }
  })
