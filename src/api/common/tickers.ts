/** A ticker named in a request: the tracked ticker's metadata, or the 400/404 that refuses it. */
import { Effect } from "effect"
import { isWellFormedSymbol, Tickers } from "../../market/tickers/index.js"
import { BadRequest, NotFound } from "../errors.js"

/** A tracked ticker's metadata: 400 for a malformed symbol, 404 for an untracked one. */
export const trackedTicker = (raw: string) =>
  Effect.gen(function* () {
    if (!isWellFormedSymbol(raw)) return yield* new BadRequest({ message: `invalid ticker ${JSON.stringify(raw)}` })
    const meta = (yield* Tickers).lookup(raw)
    if (meta === undefined) {
      return yield* new NotFound({ message: `ticker ${JSON.stringify(raw.toUpperCase())} not found` })
    }
    return meta
  })
