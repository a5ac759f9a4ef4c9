/**
 * Whether the cluster tells this process which webhook slices it holds (`VIGIL_ROLE=runner`,
 * `placement.ts`). Without it an evaluator holds every slice and evaluates under the evaluator
 * lease; with it an evaluator starts holding none and evaluates the slices it is given on its own
 * refreshes (the cluster's shard locks, not a lease, keep two runners off one slice).
 */
import { Context } from "effect"

export class SlicesPlaced extends Context.Tag("vigil/SlicesPlaced")<SlicesPlaced, true>() {}
