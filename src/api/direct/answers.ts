/**
 * The direct answers: what an annotated endpoint (DirectRead.ts) answers to
 * its common requests, made by the same functions its HttpApi handler uses,
 * from state readable without a fiber. Each returns the 200's JSON text, or
 * undefined when the request needs anything else — a database read (saved
 * rules, own universes, custom signals, a cursor secret not loaded yet),
 * history (`asof`), an alias lookup, or any error answer — and the API answers
 * it as always: one implementation of every rule.
 */
import { Either, Schema } from "effect"
import type { MarketReader } from "../../market/engine/MarketData.js"
import type { Snapshot } from "../../market/snapshot.js"
import { isWellFormedSymbol, normalizeSymbol, type TickerDirectory } from "../../market/tickers/index.js"
import { jsonHazard } from "../bodyGuard.js"
import { matcherWithoutSignals } from "../common/compile.js"
import type { CursorCodec } from "../cursor.js"
import { ScanBody, ScanParams } from "../scan/Api.js"
import { type ScanInput, scanAnswer, scanParameters } from "../scan/answer.js"
import { liveRowBody } from "../tickers/liveRow.js"
import { dayOf, isSystemId, rowsOfTickers, systemMembership } from "../universes/resolve.js"

/** The state a direct answer reads, each part undefined until it is loaded. */
export interface DirectState {
  readonly snapshot: Snapshot | undefined
  readonly market: MarketReader | undefined
  readonly directory: TickerDirectory
  readonly codec: CursorCodec | undefined
}

const decodeBody = Schema.decodeUnknownEither(ScanBody)
const decodeQuery = Schema.decodeUnknownEither(ScanParams)

/**
 * A JSON body as an endpoint's schema decodes it, or undefined when the API must answer (a body the
 * guard refuses, that does not parse, or that the schema refuses: the API's 400 says why).
 */
export const jsonBodyOf =
  <A>(decode: (input: unknown) => Either.Either<A, unknown>) =>
  (text: string): A | undefined => {
    if (jsonHazard(text) !== undefined) return undefined
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      return undefined
    }
    const decoded = decode(parsed)
    return Either.isRight(decoded) ? decoded.right : undefined
  }

/** A `POST /v2/scan` body's parameters, or undefined when it is not a JSON object the endpoint decodes. */
export const scanInputOfBody: (text: string) => ScanInput | undefined = jsonBodyOf(decodeBody)

/** A `GET /v2/scan?…` query string's parameters, or undefined when the endpoint would refuse them. */
export const scanInputOfQuery = (query: string): ScanInput | undefined => {
  if (query.includes("%00")) return undefined
  const params: Record<string, string> = {}
  for (const [name, value] of new URLSearchParams(query)) {
    if (name in params) return undefined
    params[name] = value
  }
  const decoded = decodeQuery(params)
  return Either.isRight(decoded) ? decoded.right : undefined
}

/** A live scan by an account, unscoped or scoped to a system universe, whose `q` names no custom signal. */
export const answerScan = (input: ScanInput, accountId: string, state: DirectState): string | undefined => {
  if (input.rule !== undefined || input.asof !== undefined) return undefined
  const { snapshot, codec } = state
  if (snapshot === undefined || codec === undefined) return undefined
  const p = scanParameters(input, undefined, false)
  if (Either.isLeft(p)) return undefined
  const compiled = matcherWithoutSignals(p.right.q, state.directory)
  if (compiled === undefined) return undefined
  let rows: Int32Array | undefined
  let scope: { universe: string; size: number } | undefined
  const universe = p.right.universe
  if (universe !== undefined) {
    if (!isSystemId(universe) || state.market === undefined) return undefined
    const tickers = systemMembership(state.market, universe, dayOf(snapshot.asOf)).tickers
    rows = rowsOfTickers(snapshot, tickers)
    scope = { universe, size: tickers.length }
  }
  const body = scanAnswer(p.right, { accountId, compiled, snapshot, rows, scope, codec })
  return Either.isRight(body) ? body.right : undefined
}

/** A tracked ticker's live row, named by its symbol as the path gives it (no query string). */
export const answerTicker = (segment: string, state: DirectState): string | undefined => {
  const { snapshot, market } = state
  if (snapshot === undefined || market === undefined || !isWellFormedSymbol(segment)) return undefined
  const i = market.index.get(normalizeSymbol(segment))
  if (i === undefined) return undefined
  const body = liveRowBody(snapshot, market.tickers[i]!.ticker)
  return body === undefined ? undefined : JSON.stringify(body)
}
