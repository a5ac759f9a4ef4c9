/**
 * How far V8 lets the heap grow between full garbage collections.
 *
 * By default V8 lets the old generation reach up to about twice its live size
 * (a factor from 1.1 to 4 it derives from GC and mutator speed) before the
 * next full GC, and keeps the pages it committed on the way: a service that
 * holds ~650 MB of live objects (the market and 100,000 webhook actors)
 * climbed to 1.45 GB of heap during its first evaluation and kept 1.1–1.3 GB
 * committed after (2.3 GB resident). With the growth capped at 15% of the
 * live size the heap stays within ~1.25× of what is live (1.67 GB resident
 * at the highest, same workload), for more frequent full GCs: their marking
 * runs mostly concurrently, and a refresh's old-generation growth (~10 MB)
 * triggers one every ~10 refreshes (docs/benchmarks.md, Webhooks, "Fifth pass").
 *
 * A `--heap-growing-percent` on node's command line wins (node refuses V8
 * flags in NODE_OPTIONS, so that is the only place an operator can give it).
 */
import { setFlagsFromString } from "node:v8"

export const HEAP_GROWING_PERCENT = 15

export const applyHeapPolicy = (): void => {
  const given = process.execArgv.some((a) => /^--heap[-_]growing[-_]percent/.test(a))
  if (!given) setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`)
}
