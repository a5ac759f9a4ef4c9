/**
 * The scratch row: one slot per non-string catalog column (in catalog
 * order), then the intermediates shared between the compute functions.
 * Computing a day fills it and `preview` copies its column slots to the
 * snapshot (`commit` advances the state without it). One shared instance, so
 * a refresh allocates nothing.
 *
 * A null is `ok = 0` with value 0, never NaN.
 */
import { CATALOG } from "../catalog.js"

/** Intermediates that are not columns of the ticker row. */
const INTERNAL = ["log_return"] as const

/** The non-string catalog columns, in catalog order: the columns a computed row writes. */
export const OUTPUT_COLUMNS = CATALOG.filter((c) => c.type !== "string")

const SLOT_NAMES: ReadonlyArray<string> = [...OUTPUT_COLUMNS.map((c) => c.name), ...INTERNAL]
const SLOT_INDEX = new Map(SLOT_NAMES.map((name, i) => [name, i]))

export const SLOT_COUNT = SLOT_NAMES.length

/** The slot of a column or intermediate; throws at module load if the catalog lacks it. */
export const slot = (name: string): number => {
  const i = SLOT_INDEX.get(name)
  if (i === undefined) throw new Error(`no indicator slot named ${name}`)
  return i
}

/** slots written past which `clear` fills both arrays instead of clearing slot by slot (a fill is ~20 ns) */
const CLEAR_BY_FILL = 24

/**
 * The scratch row. A class instance handed to the compute functions as a
 * parameter (rather than module-level arrays and helper imports): its fields
 * sit in registers in the hot loop, and no call goes through a live import
 * binding.
 */
export class Scratch {
  /** slot values (0 for null) */
  readonly v = new Float64Array(SLOT_COUNT)
  /** slot validity (1 = present) */
  readonly ok = new Uint8Array(SLOT_COUNT)
  /**
   * the slots written since the last `clear` (`written[0 … count)`, repeats included): a day that
   * computes a few families writes a few slots, and clearing only those is a few stores where two
   * fills of every slot cost ~40 ns a bar previewed (a whole-market dry-run previews millions)
   */
  private readonly written = new Int32Array(4 * SLOT_COUNT)
  private count = 0

  /** Every slot null again: those written since the last clear, or (many written) all of them. */
  clear(): void {
    const n = this.count
    this.count = 0
    if (n > CLEAR_BY_FILL) {
      this.v.fill(0)
      this.ok.fill(0)
      return
    }
    const { v, ok, written } = this
    for (let k = 0; k < n; k++) {
      const s = written[k]
      v[s] = 0
      ok[s] = 0
    }
  }

  /** notes slot `s` written: past the list's room, the next clear fills every slot */
  private wrote(s: number): void {
    const n = this.count
    if (n < this.written.length) this.written[n] = s
    this.count = n + 1
  }

  /** Store a number; NaN and infinities (0/0, x/0, missing inputs) become null. */
  put(s: number, x: number): void {
    this.wrote(s)
    if (x - x === 0) {
      this.v[s] = x
      this.ok[s] = 1
    } else {
      this.v[s] = 0
      this.ok[s] = 0
    }
  }

  flag(s: number, b: boolean): void {
    this.wrote(s)
    this.v[s] = b ? 1 : 0
    this.ok[s] = 1
  }

  /** The slot's value, or NaN when null (so arithmetic on it yields null again through `put`). */
  get(s: number): number {
    return this.ok[s] === 1 ? this.v[s] : Number.NaN
  }
}

/** The one scratch row of this thread (the computation is synchronous, so sharing it is safe). */
export const scratch = new Scratch()
