/** What the signal reads share: the answer's `as_of` when it is the clock's. */
import { Clock, Effect } from "effect"

export const nowIso = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString())
