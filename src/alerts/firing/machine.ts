/**
 * The alert state machine of one webhook, per ticker (issue 16): the
 * Prometheus/Grafana rule lifecycle (`for`, `keep_firing_for`, resolved
 * notifications) applied to each (webhook, ticker). Pure: the evaluator calls
 * it with a tick's matches and its time (the Effect `Clock`'s), and stores
 * what it returns; nothing here reads a clock or the store.
 *
 * A ticker is **idle**, **pending** (matching, not yet for `pending_for`),
 * **inside** (entered) or **cooling** (fired within `cooldown`: a re-entry
 * is absorbed, inside but unannounced). On each evaluation at `now`, with
 * `matches` (`q` holds, in scope) and `clears` (`clear_q` holds, or `q` does
 * not when there is no `clear_q`):
 *
 * - inside and `clears`: it leaves — `cleared` when the options fire on exit
 *   and its entry was announced;
 * - inside otherwise: it stays — `repeat` once `repeat_interval` has passed
 *   since it was last sent (announced entries, firing on enter);
 * - outside and not `matches`: idle (a pending ticker starts over);
 * - outside and `matches`: pending since its first matching evaluation until
 *   `pending_for` has passed, then it enters — `fired` (firing on enter), or
 *   absorbed without an event while `cooldown` runs since its last fire.
 *
 * A ticker that leaves does not re-enter on the same evaluation. With the
 * default options this is exactly the plain diff of match sets: inside is
 * the set of tickers matching now, `fired` the ones that newly match.
 */
import type { FiringOptions } from "../../store/webhooks.js"
import { addedIds, EMPTY, indexOfId } from "../tickerIds.js"
import { firesOnEnter, firesOnExit, needsMemory } from "./options.js"

/** What one ticker remembers beyond being inside or not (stored only when it differs from `NONE`). */
export interface Memory {
  /** epoch ms of the first evaluation of the current run of matches, while pending */
  readonly pendingSince: number | null
  /** epoch ms of its last announced entry (the cooldown runs from it) */
  readonly firedAt: number | null
  /** epoch ms it was last sent (`fired` or `repeat`; the repeat interval runs from it) */
  readonly sentAt: number | null
  /** inside with its entry announced (false: absorbed by the cooldown) */
  readonly announced: boolean
}

export type TickerPhase = "idle" | "pending" | "inside" | "cooling"

export type TickerEvent = "fired" | "repeat" | "cleared"

/** One ticker's state: whether it is inside, and its memory. */
export interface TickerState {
  readonly inside: boolean
  readonly memory: Memory
}

const IDLE: Memory = { pendingSince: null, firedAt: null, sentAt: null, announced: false }
/** an inside ticker with nothing remembered: announced, never sent as far as anyone knows */
const ANNOUNCED: Memory = { pendingSince: null, firedAt: null, sentAt: null, announced: true }

/** The state of a ticker from the stored facts: inside or not, and its memory if any. */
export const tickerState = (inside: boolean, memory: Memory | undefined): TickerState => ({
  inside,
  memory: memory ?? (inside ? ANNOUNCED : IDLE)
})

/** One evaluation of one ticker: its next state and the event it causes, if any. */
export const stepTicker = (
  o: FiringOptions,
  s: TickerState,
  matches: boolean,
  clears: boolean,
  now: number
): { readonly state: TickerState; readonly event: TickerEvent | undefined } => {
  const m = s.memory
  if (s.inside) {
    if (clears) {
      return {
        state: { inside: false, memory: { ...IDLE, firedAt: m.firedAt } },
        event: m.announced && firesOnExit(o) ? "cleared" : undefined
      }
    }
    if (!m.announced || !firesOnEnter(o) || o.repeatMs === null) return { state: s, event: undefined }
    // a ticker whose last send is unknown (inside before the repeat was asked for) starts counting now
    if (m.sentAt === null) return { state: { inside: true, memory: { ...m, sentAt: now } }, event: undefined }
    if (now - m.sentAt < o.repeatMs) return { state: s, event: undefined }
    return { state: { inside: true, memory: { ...m, sentAt: now } }, event: "repeat" }
  }
  if (!matches) {
    return {
      state:
        m.pendingSince === null && m.sentAt === null ? s : { inside: false, memory: { ...IDLE, firedAt: m.firedAt } },
      event: undefined
    }
  }
  const since = m.pendingSince ?? now
  if (now - since < o.pendingMs) {
    return {
      state: since === m.pendingSince ? s : { inside: false, memory: { ...m, pendingSince: since } },
      event: undefined
    }
  }
  if (m.firedAt !== null && now - m.firedAt < o.cooldownMs) {
    // absorbed: inside (it leaves as any other), but nothing was said
    return { state: { inside: true, memory: { ...IDLE, firedAt: m.firedAt } }, event: undefined }
  }
  return {
    state: { inside: true, memory: { pendingSince: null, firedAt: now, sentAt: now, announced: true } },
    event: firesOnEnter(o) ? "fired" : undefined
  }
}

/** What a ticker's state shows: idle, pending, inside or cooling (see the module's comment). */
export const phaseOf = (o: FiringOptions, s: TickerState, now: number): TickerPhase => {
  if (s.inside) return s.memory.announced ? "inside" : "cooling"
  if (s.memory.pendingSince !== null) return "pending"
  if (s.memory.firedAt !== null && now - s.memory.firedAt < o.cooldownMs) return "cooling"
  return "idle"
}

/** The memory worth keeping for a ticker after a step (undefined: what `tickerState` assumes without any). */
const kept = (o: FiringOptions, s: TickerState, now: number): Memory | undefined => {
  const m = s.memory
  if (s.inside) {
    if (!m.announced) return m
    return o.cooldownMs > 0 || o.repeatMs !== null ? m : undefined
  }
  if (m.pendingSince !== null) return m
  if (m.firedAt !== null && now - m.firedAt < o.cooldownMs) return m
  return undefined
}

const sameMemory = (a: Memory | undefined, b: Memory | undefined): boolean =>
  a === b ||
  (a !== undefined &&
    b !== undefined &&
    a.pendingSince === b.pendingSince &&
    a.firedAt === b.firedAt &&
    a.sentAt === b.sentAt &&
    a.announced === b.announced)

/** A webhook's firing state: the tickers inside, and what tickers remember (ticker ids, see `tickerIds.ts`). */
export interface FiringState {
  /** sorted ticker ids */
  readonly inside: Int32Array
  readonly memory: ReadonlyMap<number, Memory>
}

export const EMPTY_FIRING: FiringState = { inside: EMPTY, memory: new Map() }

/** One evaluation of a webhook: its next state and its events (sorted ticker ids). */
export interface FiringStep {
  readonly state: FiringState
  /** entries announced as `webhook.fired` */
  readonly fired: Int32Array
  /** tickers inside sent again (`repeat: true`) */
  readonly repeated: Int32Array
  /** exits announced as `webhook.cleared` */
  readonly cleared: Int32Array
  /** the state differs from the one stepped from (something to store) */
  readonly changed: boolean
}

/** whether `id` is in `sorted` */
const has = (sorted: Int32Array, id: number): boolean => indexOfId(sorted, id) >= 0

/**
 * Steps every ticker that matters — those matching now, those inside, those remembered — by
 * `stepTicker`. `matched`: sorted ids for which `q` holds now (in scope); `clearSet`: sorted ids for
 * which `clear_q` holds (over the whole market: an inside ticker leaves when it holds, in scope or
 * not), or undefined when there is no `clear_q` (a ticker leaves when it stops matching).
 */
export const stepFiring = (
  o: FiringOptions,
  s: FiringState,
  matched: Int32Array,
  clearSet: Int32Array | undefined,
  now: number
): FiringStep => {
  if (clearSet === undefined && s.memory.size === 0 && !needsMemory(o)) return plainStep(o, s, matched)
  const inside: Array<number> = []
  const fired: Array<number> = []
  const repeated: Array<number> = []
  const cleared: Array<number> = []
  const memory = new Map<number, Memory>()
  const remember = needsMemory(o) || s.memory.size > 0
  let changed = false
  const visit = (id: number, wasInside: boolean, matches: boolean) => {
    const before = s.memory.get(id)
    const clears = clearSet === undefined ? !matches : has(clearSet, id)
    const r = stepTicker(o, tickerState(wasInside, before), matches, clears, now)
    if (r.state.inside) inside.push(id)
    if (r.state.inside !== wasInside) changed = true
    if (r.event === "fired") fired.push(id)
    else if (r.event === "repeat") repeated.push(id)
    else if (r.event === "cleared") cleared.push(id)
    if (remember) {
      const after = kept(o, r.state, now)
      if (after !== undefined) memory.set(id, after)
      if (!sameMemory(before, after)) changed = true
    }
  }
  // the merge of `matched` and `inside`, in id order (so the new inside set comes out sorted)
  const a = matched
  const b = s.inside
  let i = 0
  let j = 0
  while (i < a.length || j < b.length) {
    const x = i < a.length ? a[i]! : Number.POSITIVE_INFINITY
    const y = j < b.length ? b[j]! : Number.POSITIVE_INFINITY
    if (x === y) {
      visit(x, true, true)
      i++
      j++
    } else if (x < y) {
      visit(x, false, true)
      i++
    } else {
      visit(y, true, false)
      j++
    }
  }
  // remembered tickers neither matching nor inside: pending ones start over, cooling ones expire
  for (const id of s.memory.keys()) {
    if (memory.has(id) || has(a, id) || has(b, id)) continue
    visit(id, false, false)
  }
  return {
    state: changed ? { inside: Int32Array.from(inside), memory } : s,
    fired: fired.length === 0 ? EMPTY : Int32Array.from(fired),
    repeated: repeated.length === 0 ? EMPTY : Int32Array.from(repeated),
    cleared: cleared.length === 0 ? EMPTY : Int32Array.from(cleared),
    changed
  }
}

/** Two sorted id sets compared: the ids newly in `next`, those no longer, and whether they differ at all. */
export const plainDiff = (
  previous: Int32Array,
  next: Int32Array
): { readonly added: Int32Array; readonly removed: Int32Array; readonly changed: boolean } => {
  const added = addedIds(previous, next)
  const changed = added.length > 0 || next.length !== previous.length
  return { added, removed: changed ? addedIds(next, previous) : EMPTY, changed }
}

/**
 * `stepFiring` when nothing is remembered and nothing is asked to be (no `pending_for`, `cooldown`,
 * `repeat_interval` or `clear_q`): a ticker enters as it matches and leaves as it stops, so the step
 * is the diff of the two sorted sets — what `stepTicker` gives each ticker then, without a visit each.
 */
const plainStep = (o: FiringOptions, s: FiringState, matched: Int32Array): FiringStep => {
  const { added, removed, changed } = plainDiff(s.inside, matched)
  return {
    state: changed ? { inside: matched.slice(), memory: new Map() } : s,
    fired: firesOnEnter(o) ? added : EMPTY,
    repeated: EMPTY,
    cleared: firesOnExit(o) ? removed : EMPTY,
    changed
  }
}

/**
 * The earliest time at which the memory can cause an event with unchanged matches: a pending
 * ticker's entry, an inside ticker's repeat (infinity: none; the machine need not run again until
 * the matches change).
 */
export const nextWake = (o: FiringOptions, memory: ReadonlyMap<number, Memory>): number => {
  let at = Number.POSITIVE_INFINITY
  for (const m of memory.values()) {
    if (m.pendingSince !== null) at = Math.min(at, m.pendingSince + o.pendingMs)
    if (o.repeatMs !== null && m.announced && m.sentAt !== null) at = Math.min(at, m.sentAt + o.repeatMs)
  }
  return at
}

/**
 * The stored text of a webhook's memory: `TICKER:pendingSince:firedAt:sentAt:announced` per
 * ticker, `;`-separated (empty fields for null, `1`/`0`), in ticker order. Symbols never hold `:`
 * or `;` (the directory's symbols are letters, digits, `.` and `-`).
 */
export const encodeMemory = (memory: ReadonlyMap<number, Memory>, nameOf: (id: number) => string): string => {
  const parts: Array<string> = []
  for (const [id, m] of memory) {
    parts.push(`${nameOf(id)}:${m.pendingSince ?? ""}:${m.firedAt ?? ""}:${m.sentAt ?? ""}:${m.announced ? 1 : 0}`)
  }
  return parts.sort().join(";")
}

const time = (text: string | undefined): number | null => (text === undefined || text === "" ? null : Number(text))

/** The memory stored by `encodeMemory` (entries that do not parse are dropped: they are forgotten, never invented). */
export const decodeMemory = (text: string, idOf: (name: string) => number): Map<number, Memory> => {
  const memory = new Map<number, Memory>()
  if (text === "") return memory
  for (const entry of text.split(";")) {
    const parsed = parseEntry(entry)
    if (parsed !== undefined) memory.set(idOf(parsed.name), parsed.memory)
  }
  return memory
}

/** One ticker's memory in the stored text (undefined: none kept). */
export const memoryOf = (text: string, ticker: string): Memory | undefined => {
  if (text === "") return undefined
  for (const entry of text.split(";")) {
    if (!entry.startsWith(`${ticker}:`)) continue
    const parsed = parseEntry(entry)
    if (parsed !== undefined) return parsed.memory
  }
  return undefined
}

/** `TICKER:pendingSince:firedAt:sentAt:announced` (undefined: malformed, skipped) */
const parseEntry = (entry: string): { readonly name: string; readonly memory: Memory } | undefined => {
  const [name, pending, fired, sent, announced] = entry.split(":")
  if (name === undefined || name === "" || announced === undefined) return undefined
  const m: Memory = {
    pendingSince: time(pending),
    firedAt: time(fired),
    sentAt: time(sent),
    announced: announced === "1"
  }
  if ([m.pendingSince, m.firedAt, m.sentAt].some((t) => t !== null && !Number.isFinite(t))) return undefined
  return { name, memory: m }
}

/** A webhook's event from one evaluation, numbered. */
export interface NumberedEvent {
  /** per webhook, gap-free from 1 across both types */
  readonly sequence: number
  readonly type: "webhook.fired" | "webhook.cleared"
  /** `webhook.fired`: entries, then repeats; `webhook.cleared`: exits */
  readonly tickers: Int32Array
  /** the tickers of a `webhook.fired` sent again (`repeat: true` on their rows) */
  readonly repeated: Int32Array
  /** written to the feed but not delivered (the webhook is snoozed) */
  readonly suppressed: boolean
}

/**
 * The events of one step, numbered after `lastSequence`: a `webhook.fired` when tickers entered or
 * are repeated, then a `webhook.cleared` when tickers left.
 */
export const numberEvents = (
  step: Pick<FiringStep, "fired" | "repeated" | "cleared">,
  lastSequence: number,
  suppressed: boolean
): Array<NumberedEvent> => {
  const out: Array<NumberedEvent> = []
  let sequence = lastSequence
  if (step.fired.length > 0 || step.repeated.length > 0) {
    const tickers = new Int32Array(step.fired.length + step.repeated.length)
    tickers.set(step.fired)
    tickers.set(step.repeated, step.fired.length)
    out.push({ sequence: ++sequence, type: "webhook.fired", tickers, repeated: step.repeated, suppressed })
  }
  if (step.cleared.length > 0) {
    out.push({ sequence: ++sequence, type: "webhook.cleared", tickers: step.cleared, repeated: EMPTY, suppressed })
  }
  return out
}
