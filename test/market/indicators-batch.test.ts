/**
 * The batch reference implementations on small inputs whose expected values
 * were worked out by hand (fractions shown where they are exact).
 */
import { describe, expect, it } from "vitest"
import { batch as B } from "../../src/market/indicators/index.js"

const expectSeries = (actual: ReadonlyArray<number | null>, expected: ReadonlyArray<number | null>) => {
  expect(actual.length).toBe(expected.length)
  actual.forEach((a, t) => {
    const e = expected[t]
    if (e === null) expect(a, `index ${t}`).toBeNull()
    else expect(a, `index ${t}`).toBeCloseTo(e, 10)
  })
}

// Bars used by ATR, directional movement and the stochastic:
//   t  high  low   close   TR                         +DM   -DM
//   0  10    8     9       -                          -     -
//   1  11    9     10.5    max(11,9)-min(9,9) = 2     1     0
//   2  12    10    11      2                          1     0
//   3  14    12.5  13.5    max(14,11)-min(12.5,11)=3  2     0
//   4  13    11    12      max(13,13.5)-11 = 2.5      0     1.5
//   5  12.5  11.5  12.2    12.5-11.5 = 1              0     0
const H = [10, 11, 12, 14, 13, 12.5]
const L = [8, 9, 10, 12.5, 11, 11.5]
const C = [9, 10.5, 11, 13.5, 12, 12.2]

describe("batch reference indicators (hand-computed)", () => {
  it("SMA and the completed-days trailing mean", () => {
    expectSeries(B.sma([1, 2, 3, 4, 5], 3), [null, null, 2, 3, 4])
    expectSeries(B.trailingMean([1, 2, 3, 4, 5], 2), [null, null, 1.5, 2.5, 3.5])
  })

  it("EMA seeded with the SMA of the first n values", () => {
    // n = 3, alpha = 1/2: seed (10+11+12)/3 = 11; 11/2+11/2 = 11; 10/2+11/2 = 10.5; 12/2+10.5/2 = 11.25
    expectSeries(B.ema([10, 11, 12, 11, 10, 12], 3), [null, null, 11, 11, 10.5, 11.25])
    // leading nulls shift the seed
    expectSeries(B.ema([null, null, 2, 4, 6], 2), [null, null, null, 3, 5])
  })

  it("RSI with Wilder's smoothing", () => {
    // changes +1, -0.5, +1, -0.5, +1; n = 3
    // t3: gain 2/3, loss 1/6, RS 4 -> 80
    // t4: gain 4/9, loss 5/18, RS 8/5 -> 100 - 100/2.6
    // t5: gain 17/27, loss 5/27, RS 17/5 -> 100 - 100/4.4
    expectSeries(B.rsi([10, 11, 10.5, 11.5, 11, 12], 3), [null, null, null, 80, 100 - 100 / 2.6, 100 - 100 / 4.4])
    expectSeries(B.rsi([1, 2, 3, 4], 3), [null, null, null, 100])
    expectSeries(B.rsi([5, 5, 5, 5], 3), [null, null, null, 50])
  })

  it("true range and ATR (Wilder)", () => {
    expectSeries(B.trueRange(H, L, C), [null, 2, 2, 3, 2.5, 1])
    // ATR3: t3 = 7/3, t4 = (14/3 + 5/2)/3 = 43/18, t5 = (43/9 + 1)/3 = 52/27
    expectSeries(B.atr(H, L, C, 3), [null, null, null, 7 / 3, 43 / 18, 52 / 27])
  })

  it("+DI, -DI, DX and ADX", () => {
    const d = B.directional(H, L, C, 3)
    // +DM avg: 4/3, 8/9, 16/27; -DM avg: 0, 1/2, 1/3 (9/27)
    expectSeries(d.plusDi, [null, null, null, 400 / 7, 1600 / 43, 1600 / 52])
    expectSeries(d.minusDi, [null, null, null, 0, 900 / 43, 900 / 52])
    // DX: 100, 100 x 7/25 = 28, 100 x 7/25 = 28; ADX at 2n-1 = 5: (100+28+28)/3 = 52
    expectSeries(d.dx, [null, null, null, 100, 28, 28])
    expectSeries(d.adx, [null, null, null, null, null, 52])
  })

  it("MACD line, signal and histogram", () => {
    // fast 2, slow 3, signal 2 over 10 11 12 11 10 12 13 12 (EMA2 alpha 2/3, EMA3 alpha 1/2)
    // EMA2 seeds at t1 with 10.5, t2 = 2/3 x 12 + 1/3 x 10.5 = 11.5; EMA3 seeds at t2 with 11: line = 0.5
    const m = B.macd([10, 11, 12, 11, 10, 12, 13, 12], 2, 3, 2)
    expectSeries(m.line, [
      null,
      null,
      0.5,
      0.16666666666666785,
      -0.11111111111111072,
      0.2129629629629637,
      0.36265432098765515,
      0.10005144032921898
    ])
    // signal seeded with mean(line2, line3) = 1/3
    expectSeries(m.signal, [
      null,
      null,
      null,
      1 / 3,
      0.03703703703703752,
      0.15432098765432162,
      0.2932098765432106,
      0.16443758573388287
    ])
    expect(m.histogram[3]).toBeCloseTo(1 / 6 - 1 / 3, 12)
  })

  it("Bollinger bands use the population standard deviation", () => {
    // [1,2,3]: mean 2, variance 2/3; [2,3,5]: mean 10/3, variance 14/9
    const b = B.bollinger([1, 2, 3, 5], 3, 2)
    const sd1 = Math.sqrt(2 / 3)
    const sd2 = Math.sqrt(14) / 3
    expectSeries(b.middle, [null, null, 2, 10 / 3])
    expectSeries(b.upper, [null, null, 2 + 2 * sd1, 10 / 3 + 2 * sd2])
    expectSeries(b.lower, [null, null, 2 - 2 * sd1, 10 / 3 - 2 * sd2])
    expectSeries(b.width, [null, null, 2 * sd1, (4 * sd2) / (10 / 3)])
    expectSeries(b.percentB, [null, null, 0.8061862178478972, 0.8340765523905305])
    expectSeries(B.bollinger([4, 4, 4], 3, 2).percentB, [null, null, null])
  })

  it("stochastic %K, %D and Williams %R", () => {
    // t2: HH 12, LL 8 -> 100 x 3/4; t3: HH 14, LL 9 -> 90; t4: HH 14, LL 10 -> 50; t5: HH 14, LL 11 -> 40
    const s = B.stochastic(H, L, C, 3, 2)
    expectSeries(s.k, [null, null, 75, 90, 50, 40])
    expectSeries(s.d, [null, null, null, 82.5, 70, 45])
    expectSeries(s.williamsR, [null, null, -25, -10, -50, -60])
  })

  it("OBV, rolling extremes, returns and volatility", () => {
    expectSeries(B.obv([10, 11, 11, 10, 12], [100, 200, 300, 400, 500]), [0, 200, 200, -200, 300])
    expectSeries(B.rollingMax([3, 1, 4, 1, 5], 3), [null, null, 4, 4, 5])
    expectSeries(B.rollingMin([3, 1, 4, 1, 5], 3), [null, null, 1, 1, 1])
    expectSeries(B.trailingReturn([100, 110, 99, 99], 2), [null, null, -0.01, -0.1])
    // log returns ln 1.1, ln 0.9, 0; sample sd of two values = |a - b| / sqrt 2; x sqrt(4)
    const v = B.volatility([100, 110, 99, 99], 2, 4)
    expectSeries(v, [null, null, (Math.abs(Math.log(1.1) - Math.log(0.9)) / Math.SQRT2) * 2, 0.14900227018192075])
  })
})
