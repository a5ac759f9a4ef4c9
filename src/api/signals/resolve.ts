/** A signal named in a path: a built-in signal column, else one of the account's custom signals (Pro to consume). */
import { Effect } from "effect"
import type { AuthenticatedKey } from "../../accounts/Accounts.js"
import { type ColumnDef, columnByName } from "../../market/catalog.js"
import type { TickerDirectory } from "../../market/tickers/index.js"
import type { CompiledQuery, Signals } from "../../query/index.js"
import { accountSignals, compileConsuming, compileContext } from "../common/compile.js"
import { NotFound } from "../errors.js"

export type Resolved =
  | { readonly kind: "builtin"; readonly column: ColumnDef }
  | { readonly kind: "custom"; readonly name: string; readonly compiled: CompiledQuery }

export const resolveSignal = (raw: string, key: AuthenticatedKey, directory: TickerDirectory) =>
  Effect.gen(function* () {
    const name = raw.toLowerCase()
    const column = columnByName.get(name)
    if (column !== undefined) {
      if (!column.signal) {
        return yield* new NotFound({ message: `${name} is a string column, not a signal` })
      }
      return { kind: "builtin", column } as Resolved
    }
    const signals: Signals = yield* accountSignals(key.account.id)
    if (signals.get(name) === undefined) {
      return yield* new NotFound({
        message: `no signal ${JSON.stringify(raw)}: not a built-in nor a custom signal of this account`
      })
    }
    const compiled = yield* compileConsuming(
      name,
      compileContext(directory, signals),
      key.account.plan,
      `signal ${name}`
    )
    return { kind: "custom", name, compiled } as Resolved
  })
