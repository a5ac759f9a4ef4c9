/** The answer's `as_of` when it is the clock's (reads that do not depend on the market). */
import { Clock, Effect } from "effect"

export const nowIso: Effect.Effect<string> = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())
