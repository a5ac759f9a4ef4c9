/**
 * The sliding-window maximum or minimum of a history ring (`window.ts`): the
 * highest high and lowest low behind the 52-week range and the oscillators.
 * Like the other windows it is pushed right after its ring and can be rebuilt
 * from the ring alone.
 */
import type { Ring } from "./window.js"

/**
 * Maximum (`sign` 1) or minimum (`sign` -1) of the last `length` values of a
 * ring. A push is O(1) unless the extreme itself leaves the window, in which
 * case the window is rescanned: amortized O(1) on real prices, at worst
 * O(length) (a steady trend away from the extreme). The value is always the
 * exact extreme of the window, so it is rebuilt by one scan.
 */
export class WindowExtreme {
  pushed = 0
  value = Number.NaN

  constructor(
    readonly ring: Ring,
    readonly length: number,
    private readonly sign: 1 | -1
  ) {}

  get full(): boolean {
    return this.pushed >= this.length
  }

  push(): void {
    const ring = this.ring
    const buf = ring.buf
    const mask = ring.mask
    const head = ring.count - 1
    const p = ++this.pushed
    const x = buf[head & mask]
    const s = this.sign
    if (p === 1 || s * x >= s * this.value) {
      this.value = x
    } else if (p > this.length && buf[(head - this.length) & mask] === this.value) {
      this.rescan()
    }
  }

  private rescan(): void {
    const ring = this.ring
    const buf = ring.buf
    const mask = ring.mask
    const head = ring.count - 1
    const n = Math.min(this.pushed, this.length)
    const s = this.sign
    let m = buf[head & mask]
    for (let b = 1; b < n; b++) {
      const v = buf[(head - b) & mask]
      if (s * v > s * m) m = v
    }
    this.value = m
  }

  /** Recompute after `pushed` pushes from the ring (which must hold the last `length` values). */
  rebuild(pushed: number): void {
    this.pushed = pushed
    if (pushed === 0) this.value = Number.NaN
    else this.rescan()
  }

  save(): Array<number> {
    return [this.pushed, this.value]
  }

  load(saved: ReadonlyArray<number>): void {
    ;[this.pushed, this.value] = saved as [number, number]
  }
}
