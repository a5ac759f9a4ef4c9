/**
 * How long a due tick waits for the slices behind on the previous one (`SliceWait`,
 * src/alerts/tickDriver.ts): `TICK_WAIT_FOR_SLICES_MS` after the previous tick's issue or the last
 * slice seen committing it, at most `TICK_WAIT_MAX_MS` after the issue.
 */
import { describe, expect, it } from "vitest"
import { SliceWait, TICK_WAIT_FOR_SLICES_MS, TICK_WAIT_MAX_MS } from "../../src/alerts/tickDriver.js"

const WAIT = TICK_WAIT_FOR_SLICES_MS

describe("a due tick waiting for the slices", () => {
  it("goes at once when no slice is behind, and TICK_WAIT_FOR_SLICES_MS after the issue when none commits (a dead runner's slices)", () => {
    const wait = new SliceWait()
    const tick = { seq: 7, asOf: 100_000 }
    expect(wait.waits(tick, 0, tick.asOf + 2_000)).toBe(false)
    const dead = new SliceWait()
    expect(dead.waits(tick, 340, tick.asOf + 2_000)).toBe(true)
    expect(dead.waits(tick, 340, tick.asOf + WAIT - 1)).toBe(true)
    expect(dead.waits(tick, 340, tick.asOf + WAIT)).toBe(false)
  })

  it("keeps waiting while slices catch up (a handover: their new holders commit one after another), for TICK_WAIT_FOR_SLICES_MS after the last", () => {
    const wait = new SliceWait()
    const tick = { seq: 8, asOf: 200_000 }
    expect(wait.waits(tick, 340, tick.asOf + 2_000)).toBe(true)
    // the slices' new holders commit from 3.5 s on: each commit is progress
    expect(wait.waits(tick, 300, tick.asOf + 3_500)).toBe(true)
    expect(wait.waits(tick, 300, tick.asOf + WAIT + 100)).toBe(true)
    expect(wait.waits(tick, 4, tick.asOf + 3_500 + WAIT - 100)).toBe(true)
    // the last four committed: the tick goes
    expect(wait.waits(tick, 0, tick.asOf + 3_500 + WAIT)).toBe(false)
    // four left that no one commits: TICK_WAIT_FOR_SLICES_MS after the last progress
    const stuck = new SliceWait()
    stuck.waits(tick, 340, tick.asOf + 2_000)
    stuck.waits(tick, 4, tick.asOf + 3_000)
    expect(stuck.waits(tick, 4, tick.asOf + 3_000 + WAIT - 1)).toBe(true)
    expect(stuck.waits(tick, 4, tick.asOf + 3_000 + WAIT)).toBe(false)
  })

  it("waits TICK_WAIT_MAX_MS at most, however the slices progress; a new tick starts over", () => {
    const wait = new SliceWait()
    const tick = { seq: 9, asOf: 300_000 }
    let behind = 1_000
    for (let t = tick.asOf + 2_000; t < tick.asOf + TICK_WAIT_MAX_MS; t += 100) {
      expect(wait.waits(tick, behind--, t)).toBe(true)
    }
    expect(wait.waits(tick, behind--, tick.asOf + TICK_WAIT_MAX_MS)).toBe(false)
    const next = { seq: 10, asOf: tick.asOf + TICK_WAIT_MAX_MS }
    expect(wait.waits(next, 500, next.asOf + 2_000)).toBe(true)
    expect(wait.waits(next, 500, next.asOf + WAIT)).toBe(false)
  })
})
