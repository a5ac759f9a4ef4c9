/**
 * How far V8 lets the heap grow between full garbage collections.
 *
 * By default V8 lets the old generation reach up to about twice its live size
 * (a factor from 1.1 to 4 it derives from GC and mutator speed) before the
 * next full GC, and keeps the pages it committed on the way: a service that
 * held ~650 MB of live objects (the market and 100,000 webhook actors, in
 * 2026-11) climbed to 1.45 GB of heap during its first evaluation and kept
 * 1.1–1.3 GB committed after (2.3 GB resident). The growth is capped at a
 * share of the live size instead.
 *
 * The share bounds the slack, and sets how much one evaluation may allocate
 * before a full GC starts marking in the middle of it. The marking's steps
 * run on the event loop (the concurrent marker shares the second core with
 * the database), ~250 ms of them for a ~300 MB live heap. 15%, chosen when
 * the live heap was ~650 MB (~100 MB of slack), is ~45 MB since the actors
 * shrank to ~300 MB: less than a tick on which many webhooks enter together
 * allocates (2,500 `pending_for` webhooks entering at once: ~50 MB), so that
 * tick carried a whole marking. 30% keeps the slack near the ~100 MB it was
 * (docs/benchmarks.md, "Issue 16: the pending wave's tick").
 *
 * A `--heap-growing-percent` on node's command line wins (node refuses V8
 * flags in NODE_OPTIONS, so that is the only place an operator can give it).
 */
import { setFlagsFromString } from "node:v8"

export const HEAP_GROWING_PERCENT = 30

export const applyHeapPolicy = (): void => {
  const given = process.execArgv.some((a) => /^--heap[-_]growing[-_]percent/.test(a))
  if (!given) setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`)
}
