/**
 * Whether this process's market follows the refresh ticks in the store
 * (processes of a split deployment: `VIGIL_ROLE=api` and `runner`) instead of
 * refreshing on its own clock: every process then holds the same snapshot
 * for a tick — same `as_of`, same imports — and a refresh asked for through
 * any of them is the next tick (`src/alerts/tickDriver.ts` issues them; the
 * store's `Ticks` is the log, `src/store/marketStore.ts` provides it).
 */
import { Context } from "effect"
import type { TickLog } from "./ports.js"

export class FollowTicks extends Context.Tag("vigil/FollowTicks")<FollowTicks, TickLog>() {}

/** how often a following process looks for a new tick (ms) */
export const TICK_POLL_MS = 100

/** how long a refresh asked for through a following process waits for its tick (ms) */
export const TICK_WAIT_MS = 30_000
