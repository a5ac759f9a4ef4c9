/**
 * A subscription's conditions (`q`, a ticker subscription's condition,
 * `clear_q`) compiled for the account and frozen: custom signals expanded,
 * the canonical text stored.
 */
import { Effect } from "effect"
import type { AuthenticatedKey } from "../../accounts/Accounts.js"
import { columnByName } from "../../market/catalog.js"
import { Tickers } from "../../market/tickers/index.js"
import { Rules } from "../../store/rules.js"
import { accountSignals, compileFor } from "../common/compile.js"
import { BadRequest, InvalidQuery, NotFound, orUnavailable, UnknownSignal } from "../errors.js"
import { MAX_Q_LENGTH } from "../scan/params.js"
import { parseCondition } from "../signals/matching.js"
import { lookupUniverse } from "../universes/resolve.js"

/**
 * Compiles a condition for the account (consuming custom signals needs Pro: `compileFor`); its
 * `text` is the frozen condition.
 */
export const freezeCompiled = (key: AuthenticatedKey, text: string, parameter: string) =>
  Effect.gen(function* () {
    if (text.length > MAX_Q_LENGTH) {
      return yield* new InvalidQuery({
        message: `${parameter} is ${text.length} characters; at most ${MAX_Q_LENGTH} are allowed`
      })
    }
    return yield* compileFor(text, yield* Tickers, key.account, parameter)
  })

/** Compiles a condition for the account and freezes it (consuming custom signals needs Pro: `compileFor`). */
export const freeze = (key: AuthenticatedKey, text: string, parameter: string) =>
  Effect.map(freezeCompiled(key, text, parameter), (compiled) => compiled.text)

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

/** A subscription's `universe`: the id of a system or owned universe (404 otherwise), or null. */
export const checkUniverse = (accountId: string, universe: string | null | undefined) =>
  Effect.gen(function* () {
    if (universe === undefined || universe === null) return null
    return (yield* lookupUniverse(accountId, universe)).id
  })

/** A signal subscription's condition: a boolean signal (built-in or custom), or `<op><value>` on a numeric one. */
export const signalCondition = (key: AuthenticatedKey, signal: string, condition: string | undefined) =>
  Effect.gen(function* () {
    const name = signal.trim().toLowerCase()
    const column = columnByName.get(name)
    const signals = yield* accountSignals(key.account.id)
    if (column?.signal && column.type === "boolean") {
      return { name, expr: `${name} = true`, condition: name, defaultName: name }
    }
    if (column?.signal && column.type === "numeric") {
      if (condition === undefined || condition.trim() === "") {
        return yield* new BadRequest({
          message: `condition is required for the numeric signal ${name}: <op><value>, e.g. >70`
        })
      }
      const parsed = parseCondition(condition)
      if (parsed === undefined) {
        return yield* new BadRequest({
          message: `condition must be <op><value> with op one of > >= = != < <= (got ${JSON.stringify(condition)})`
        })
      }
      const expr = `${name} ${parsed.op} ${parsed.value}`
      return { name, expr, condition: parsed.text, defaultName: expr }
    }
    if (signals.get(name) !== undefined) return { name, expr: `${name} = true`, condition: name, defaultName: name }
    return yield* new UnknownSignal({
      message: `${JSON.stringify(signal)} is neither a built-in signal nor one of this account's custom signals (GET /v2/signals lists them)`
    })
  })

/** The condition text of a `q` or a saved rule (`rule_id`: its q, and its universe unless one is given). */
export const queryOrRule = (
  key: AuthenticatedKey,
  payload: {
    readonly q?: string | undefined
    readonly rule_id?: string | undefined
    readonly universe?: string | null | undefined
  }
) =>
  Effect.gen(function* () {
    if ((payload.q === undefined) === (payload.rule_id === undefined)) {
      return yield* new BadRequest({ message: "give exactly one of q (a condition) or rule_id (a saved rule)" })
    }
    if (payload.rule_id !== undefined) {
      const rule = yield* orUnavailable((yield* Rules).get(key.account.id, payload.rule_id))
      if (rule === undefined)
        return yield* new NotFound({ message: `rule ${JSON.stringify(payload.rule_id)} not found` })
      return {
        text: rule.q,
        universe: payload.universe === undefined ? rule.universe : payload.universe,
        ref: rule.id as string | null
      }
    }
    const text = payload.q!
    if (text.trim() === "") return yield* new BadRequest({ message: "q must not be empty" })
    return { text, universe: payload.universe, ref: null as string | null }
  })
