/**
 * How the rest of the service resolves an account's custom signals when it
 * compiles a `q`: the account's own signals as a name → expr lookup. The
 * custom-signal store implements it; scans, signal reads and subscriptions
 * use it.
 */
import type { SqlError } from "@effect/sql/SqlError"
import { Context, Effect, Layer } from "effect"
import { type Signals, signalsOf } from "../query/index.js"

export class SignalResolver extends Context.Tag("vigil/SignalResolver")<
  SignalResolver,
  {
    /** the custom signals the account owns (exact, lower-case names) */
    readonly signalsFor: (accountId: string) => Effect.Effect<Signals, SqlError>
  }
>() {
  /** A fixed set per account, for tests. */
  static readonly fixed = (byAccount: Record<string, Record<string, string>>) =>
    Layer.succeed(SignalResolver, {
      signalsFor: (accountId) => Effect.succeed(signalsOf(byAccount[accountId] ?? {}))
    })
}
