/**
 * A subscription's conditions (`q`, a ticker subscription's condition,
 * `clear_q`) compiled for the account and frozen: custom signals expanded,
 * the canonical text stored.
 */
import { Effect } from "effect"
import type { AuthenticatedKey } from "../../accounts/Accounts.js"
import { Tickers } from "../../market/tickers/index.js"
import { compileFor } from "../common/compile.js"
import { InvalidQuery } from "../errors.js"
import { MAX_Q_LENGTH } from "../scan/params.js"

/** Compiles a condition for the account and freezes it (consuming custom signals needs Pro: `compileFor`). */
export const freeze = (key: AuthenticatedKey, text: string, parameter: string) =>
  Effect.gen(function* () {
    if (text.length > MAX_Q_LENGTH) {
      return yield* new InvalidQuery({
        message: `${parameter} is ${text.length} characters; at most ${MAX_Q_LENGTH} are allowed`
      })
    }
    const compiled = yield* compileFor(text, yield* Tickers, key.account, parameter)
    return compiled.text
  })

/**
 * The frozen q of a condition restricted to one ticker: `ticker = '<T>' AND (<condition>)`, the
 * condition compiled (and frozen) on its own, so it stays one parenthesized operand whatever its
 * precedence and cannot close the parentheses to widen the subscription.
 */
export const freezeForTicker = (key: AuthenticatedKey, ticker: string, condition: string) =>
  Effect.map(
    freeze(key, condition, "condition"),
    (frozen) => `ticker = '${ticker.replaceAll("'", "''")}' AND (${frozen})`
  )
