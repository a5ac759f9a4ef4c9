/**
 * The bar file kept beside the deep grid (`history/deepBars.ts`): every bar written reads back bit for
 * bit — prices on the tick grid stored as int32, any other double as a double, whole and fractional
 * volumes — for any group, any range of days, any subset of tickers; bars laid before a walk's range
 * (an import) may come first; an empty chunk takes no bytes. Appended to a series (`appendStored`),
 * they are the bars pushing them one by one gives, whatever the series keeps its prices as.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { BarSeries } from "../../src/market/history/barSeries.js"
import { CHUNK_DAYS, DeepBarsWriter } from "../../src/market/history/deepBars.js"
import { appendStored, DeepBarsReader, groupBars } from "../../src/market/history/deepBarsReader.js"
import { SeriesArena } from "../../src/market/history/seriesArena.js"

interface Bar {
  readonly day: number
  readonly open: number
  readonly high: number
  readonly low: number
  readonly close: number
  readonly volume: number
}

const price = fc.oneof(
  fc.integer({ min: 1, max: 5_000_000 }).map((c) => c / 100), // cents
  fc.integer({ min: 1, max: 9_999 }).map((c) => c / 10_000), // sub-dollar ticks
  fc.double({ min: 1e-9, max: 1e7, noNaN: true }), // any double (an imported bar)
  fc.constantFrom(0, -0, 250_000.5, 2 ** 40) // -0 and prices past int32 × 10,000
)
const volume = fc.oneof(
  fc.integer({ min: 0, max: 2 ** 32 - 1 }),
  fc.double({ min: 0, max: 1e12, noNaN: true }),
  fc.constantFrom(-0, 2 ** 32, 2 ** 53)
)

/** per ticker: bars on ascending days within [base, lastDay + 30] (those past lastDay are not kept) */
const market = fc
  .record({
    size: fc.integer({ min: 1, max: 11 }),
    group: fc.integer({ min: 1, max: 5 }),
    base: fc.integer({ min: 10_000, max: 12_000 }),
    span: fc.integer({ min: 1, max: 400 })
  })
  .chain(({ size, group, base, span }) =>
    fc.record({
      size: fc.constant(size),
      group: fc.constant(group),
      base: fc.constant(base),
      lastDay: fc.constant(base + span),
      tickers: fc.array(
        fc
          .uniqueArray(fc.integer({ min: base - 40, max: base + span + 30 }), { maxLength: 60 })
          .chain((days) =>
            fc.tuple(
              ...[...days]
                .sort((a, b) => a - b)
                .map((day) =>
                  fc.record({ day: fc.constant(day), open: price, high: price, low: price, close: price, volume })
                )
            )
          ),
        { minLength: size, maxLength: size }
      )
    })
  )

const same = (a: number, b: number) => Object.is(a, b)

describe("the deep bar file", () => {
  it("reads back every bar written, bit for bit, for any group, range and subset", () => {
    fc.assert(
      fc.property(market, fc.integer({ min: -50, max: 450 }), fc.integer({ min: 0, max: 450 }), (m, a, len) => {
        const parts: Array<Uint8Array> = []
        const writer = new DeepBarsWriter(m.size, m.base, m.lastDay, (b) => parts.push(b), m.group)
        for (let from = 0; from < m.size; from += m.group) {
          const members = m.tickers.slice(from, from + m.group)
          // each ticker's first bar laid first (as an import before a walk's range is), then the rest by day
          members.forEach((bars, t) => {
            if (bars.length > 0)
              writer.bar(
                from + t,
                bars[0]!.day,
                bars[0]!.open,
                bars[0]!.high,
                bars[0]!.low,
                bars[0]!.close,
                bars[0]!.volume
              )
          })
          const rest = members.flatMap((bars, t) => bars.slice(1).map((b) => [from + t, b] as const))
          rest.sort((x, y) => x[1].day - y[1].day)
          for (const [i, b] of rest) {
            writer.bar(i, b.day, b.open, b.high, b.low, b.close, b.volume)
            writer.reached(b.day - 1)
          }
          writer.endGroup()
        }
        const layout = writer.layout()
        const file = Buffer.concat(parts)
        expect(layout.offsets[layout.offsets.length - 1]).toBe(file.length)
        const reader = new DeepBarsReader(layout, (into, at) => into.set(file.subarray(at, at + into.length)))
        const fromDay = Math.max(m.base, m.base + a)
        const toDay = Math.min(m.lastDay, fromDay + len)
        expect(reader.covers(m.base - 1, toDay)).toBe(false)
        expect(reader.covers(fromDay, m.lastDay + 1)).toBe(false)
        if (!reader.covers(fromDay, toDay)) return
        for (let from = 0, g = 0; from < m.size; from += m.group, g++) {
          const tickers = Math.min(m.group, m.size - from)
          const out = groupBars(tickers, toDay - fromDay + 1)
          const odd = (t: number) => t % 2 === 1
          reader.read(g, fromDay, toDay, out, g % 2 === 0 ? undefined : odd)
          for (let t = 0; t < tickers; t++) {
            const expected: ReadonlyArray<Bar> =
              g % 2 === 1 && !odd(t) ? [] : m.tickers[from + t]!.filter((b) => b.day >= fromDay && b.day <= toDay)
            expect(out.length[t]).toBe(expected.length)
            expected.forEach((b, k) => {
              const o = t * out.capacity + k
              expect(out.days[o]).toBe(b.day)
              for (const [got, want] of [
                [out.open[o], b.open],
                [out.high[o], b.high],
                [out.low[o], b.low],
                [out.close[o], b.close],
                [out.volume[o], b.volume]
              ] as const)
                expect(same(got!, want), `${got} for ${want}`).toBe(true)
            })
          }
        }
        // appended to series (int32 ticks copied into a series keeping them so) as pushing them would
        const slots = Int32Array.from({ length: m.size }, (_, i) => i).filter((i) => i % 3 !== 2)
        const end = (i: number) => toDay - (i % 4)
        const made = (i: number) => (i % 2 === 0 ? BarSeries.scaledIn(64, new SeriesArena(64)) : new BarSeries(4))
        const got = new Map(Array.from(slots, (i) => [i, made(i)]))
        appendStored(reader, slots, fromDay, end, (i) => got.get(i)!)
        for (const i of slots) {
          const want = made(i)
          for (const b of m.tickers[i]!) {
            if (b.day >= fromDay && b.day <= end(i)) want.push(b.day, b.open, b.high, b.low, b.close, b.volume)
          }
          const a = got.get(i)!
          expect(a.length).toBe(want.length)
          expect(a.ohlScale).toBe(want.ohlScale)
          expect(a.volume.constructor).toBe(want.volume.constructor)
          for (let j = 0; j < a.length; j++) {
            const pairs = [
              [a.days[j], want.days[j]],
              [a.openAt(j), want.openAt(j)],
              [a.highAt(j), want.highAt(j)],
              [a.lowAt(j), want.lowAt(j)],
              [a.close[j], want.close[j]],
              [a.volume[j], want.volume[j]]
            ] as const
            for (const [x, y] of pairs) expect(same(x!, y!), `${i} bar ${j}: ${x} for ${y}`).toBe(true)
          }
        }
      }),
      { numRuns: 300 }
    )
  })

  it("keeps a simulated bar in 21 bytes and an empty chunk in none", () => {
    const parts: Array<Uint8Array> = []
    const writer = new DeepBarsWriter(2, 1000, 1000 + 3 * CHUNK_DAYS - 1, (b) => parts.push(b), 2)
    for (let d = 0; d < CHUNK_DAYS; d++) writer.bar(0, 1000 + d, 10.01, 10.5, 9.99, 10.25 + d / 100, 1_234_567)
    writer.reached(1000 + 3 * CHUNK_DAYS)
    writer.endGroup()
    const layout = writer.layout()
    expect(layout.offsets).toEqual([0, layout.offsets[1], layout.offsets[1], layout.offsets[1]])
    // the header (2 counts, 2 flags: 16 bytes), then 64 days, 4 × 64 int32 prices, 64 uint32 volumes
    expect(layout.offsets[1]).toBe(16 + CHUNK_DAYS * 21)
  })

  it("refuses a bar after its chunk was written", () => {
    const writer = new DeepBarsWriter(1, 1000, 2000, () => {}, 1)
    writer.bar(0, 1100, 1, 1, 1, 1, 1)
    writer.reached(1200)
    expect(() => writer.bar(0, 1100 + 1, 1, 1, 1, 1, 1)).toThrow(/after its chunk was written/)
  })
})
