/**
 * The simulated news stream and its two columns.
 *
 * Every ticker gets mentions every UTC day, weekends included. The count is
 * Poisson with a rate that grows with market cap (`newsRate`: about 0.7/day for
 * a $100M company, 8/day at $100B, 37/day at $3T; ETFs 0.15×, crypto 0.5×),
 * halves when equities do not trade, ×5 on earnings days, rises with the size
 * of the day's move (|move| beyond 1.5σ) and carries a day-level lognormal
 * noise. Each mention has a time (65 % within 12:00–22:00 UTC, the rest
 * uniform over the day), a relevance in [0, 1] (u^0.8, so about 47 % reach 0.6;
 * u^0.45 on earnings days) and a sentiment in (-1, 1) tilted by the day's
 * return, the earnings surprise and a per-ticker-day mood. Values are rounded
 * to 3 decimals; times are whole milliseconds.
 *
 * Columns at an instant t, quantized down to the 15-minute boundary tq, over
 * the mentions in (tq - 24h, tq] (the definition of `newsColumns` in
 * `indicators/news.ts`):
 * - news_volume = count with relevance >= 0.6;
 * - news_volume_weighted_sentiment = (Σ relevance·sentiment / Σ relevance over
 *   all mentions in the window) × tanh(news_volume / 15), 0 when news_volume = 0.
 */
import { NEWS_ATTENUATION, NEWS_RELEVANCE_MIN, NEWS_WINDOW_MS, type NewsMention } from "../indicators/news.js"
import { computeReturns, type DayModel, type ReturnScratch } from "./daily.js"
import { KIND_CRYPTO } from "./params.js"
import { fmix32, hash2, logisticOf, poissonOf } from "./random.js"
import { DAY_MS } from "./tradingDays.js"

const NEWS_STREAM = 0x4e57
export const NEWS_REFRESH_MS = 15 * 60_000

const round3 = (x: number): number => Math.round(x * 1000) / 1000

/** All mentions of one UTC day: ticker i's are `at/relevance/sentiment[offsets[i] .. offsets[i+1])`, by time. */
export interface DayNews {
  readonly day: number
  readonly offsets: Int32Array
  readonly at: Float64Array
  readonly relevance: Float64Array
  readonly sentiment: Float64Array
}

const TABLE_BITS = 12
const TABLE_MASK = (1 << TABLE_BITS) - 1
const table = (f: (p: number) => number): Float64Array =>
  Float64Array.from({ length: 1 << TABLE_BITS }, (_, j) => f((j + 0.5) / (1 << TABLE_BITS)))
/** day-level noise of the mention rate, mean ≈ 1 */
const RATE_NOISE = table((p) => Math.exp(0.4 * logisticOf(p) - 0.08))
/** per-ticker-day mood */
const MOOD = table((p) => 0.2 * logisticOf(p))
/** relevance u^0.8 (normal days) and u^0.45 (earnings days), rounded to 3 decimals */
const RELEVANCE = table((p) => round3(p ** 0.8))
const RELEVANCE_EARNINGS = table((p) => round3(p ** 0.45))
/** per-mention sentiment noise */
const SENTIMENT_NOISE = table((p) => 0.6 * logisticOf(p))
const INV_2_32 = 2 ** -32

/** Per ticker of one day: mention count, mood, earnings flag and random key. */
interface DayPlan {
  readonly count: Int32Array
  readonly tilt: Float64Array
  readonly earnings: Uint8Array
  readonly key: Int32Array
}

/**
 * Plans tickers from ≤ i < to of `model.day` into `plan`: how many mentions and
 * their mood. `r` holds the day's log returns (from `computeReturns`).
 */
const planDay = (model: DayModel, r: Float64Array, dayKey: number, plan: DayPlan, from: number, to: number): void => {
  const p = model.p
  const quiet = model.equityMinutes === 0
  for (let i = from; i < to; i++) {
    const tk = hash2(dayKey, p.key[i])
    const h = fmix32(tk ^ 0x3c6ef372)
    let move = 0
    let surprise = 0
    let earn = false
    if (model.trades(i)) {
      const sigma = model.sigmaToday(i)
      move = sigma > 0 ? (r[i] - p.drift[i]) / sigma : 0
      earn = model.isEarningsDay(i)
      if (earn) surprise = model.earnings.surprise(i, model.quarter)
    }
    const big = Math.abs(move) > 1.5 ? Math.abs(move) - 1.5 : 0
    const lambda =
      p.newsRate[i] *
      (quiet && p.kind[i] !== KIND_CRYPTO ? 0.5 : 1) *
      (earn ? 5 : 1) *
      (1 + 0.5 * big * big) *
      RATE_NOISE[h & TABLE_MASK]
    plan.count[i] = poissonOf(Math.min(lambda, 400), (fmix32(tk ^ 0x78dde6e4) + 0.5) * INV_2_32)
    plan.tilt[i] =
      0.5 * Math.tanh(0.7 * move) + MOOD[(h >>> TABLE_BITS) & TABLE_MASK] + (earn ? 0.5 * Math.tanh(surprise) : 0)
    plan.earnings[i] = earn ? 1 : 0
    plan.key[i] = tk
  }
}

const allocatePlan = (n: number): DayPlan => ({
  count: new Int32Array(n),
  tilt: new Float64Array(n),
  earnings: new Uint8Array(n),
  key: new Int32Array(n)
})

/** Writes ticker i's planned mentions at `pos..pos+count` of the arrays, sorted by time. */
const writeMentions = (
  plan: DayPlan,
  i: number,
  start: number,
  at: Float64Array,
  relevance: Float64Array,
  sentiment: Float64Array,
  pos: number
): void => {
  const count = plan.count[i]
  const tk = plan.key[i]
  const tilt = 1.5 * plan.tilt[i]
  const rel = plan.earnings[i] === 1 ? RELEVANCE_EARNINGS : RELEVANCE
  for (let j = 0; j < count; j++) {
    const h = fmix32(tk ^ Math.imul(j + 1, 0x9e3779b1))
    const g = fmix32(h ^ 0x6a09e667)
    const u = (h + 0.5) * INV_2_32
    const fraction = u < 0.65 ? (12 + (u / 0.65) * 10) / 24 : (u - 0.65) / 0.35
    at[pos + j] = start + Math.floor(fraction * DAY_MS)
    relevance[pos + j] = rel[g & TABLE_MASK]
    sentiment[pos + j] = round3(Math.tanh(tilt + SENTIMENT_NOISE[(g >>> TABLE_BITS) & TABLE_MASK]))
  }
  sortSegment(at, relevance, sentiment, pos, pos + count)
}

const newsDayKey = (seedKey: number, day: number): number => hash2(hash2(seedKey, NEWS_STREAM), day)

/** Generates the mentions of `model.day` for every ticker. */
export const generateDayNews = (model: DayModel, seedKey: number, scratch: ReturnScratch): DayNews => {
  const n = model.p.n
  const day = model.day
  computeReturns(model, scratch.r, scratch.gap)
  const plan = allocatePlan(n)
  planDay(model, scratch.r, newsDayKey(seedKey, day), plan, 0, n)
  const offsets = new Int32Array(n + 1)
  let total = 0
  for (let i = 0; i < n; i++) {
    offsets[i] = total
    total += plan.count[i]
  }
  offsets[n] = total
  const at = new Float64Array(total)
  const relevance = new Float64Array(total)
  const sentiment = new Float64Array(total)
  const start = day * DAY_MS
  for (let i = 0; i < n; i++) if (plan.count[i] > 0) writeMentions(plan, i, start, at, relevance, sentiment, offsets[i])
  return { day, offsets, at, relevance, sentiment }
}

/** The mentions of `model.day` of ticker `i` alone (identical to its part of `generateDayNews`). */
export const tickerDayNews = (model: DayModel, seedKey: number, scratch: ReturnScratch, i: number): DayNews => {
  const n = model.p.n
  computeReturns(model, scratch.r, scratch.gap, i, i + 1)
  const plan = allocatePlan(n)
  planDay(model, scratch.r, newsDayKey(seedKey, model.day), plan, i, i + 1)
  const count = plan.count[i]
  const at = new Float64Array(count)
  const relevance = new Float64Array(count)
  const sentiment = new Float64Array(count)
  writeMentions(plan, i, model.day * DAY_MS, at, relevance, sentiment, 0)
  const offsets = new Int32Array(n + 1)
  for (let j = i + 1; j <= n; j++) offsets[j] = count
  return { day: model.day, offsets, at, relevance, sentiment }
}

/** Insertion sort of one ticker's mentions by time (a handful of items). */
const sortSegment = (at: Float64Array, rel: Float64Array, sen: Float64Array, from: number, to: number): void => {
  for (let a = from + 1; a < to; a++) {
    const t = at[a]
    const r = rel[a]
    const s = sen[a]
    let b = a - 1
    while (b >= from && at[b] > t) {
      at[b + 1] = at[b]
      rel[b + 1] = rel[b]
      sen[b + 1] = sen[b]
      b--
    }
    at[b + 1] = t
    rel[b + 1] = r
    sen[b + 1] = s
  }
}

/** The 15-minute boundary at or before `epochMs`. */
export const newsInstant = (epochMs: number): number => Math.floor(epochMs / NEWS_REFRESH_MS) * NEWS_REFRESH_MS

/**
 * Writes both columns for every ticker at the exact instant `tq` from the two
 * UTC days that the window (tq - 24h, tq] touches.
 */
export const fillNewsColumns = (
  tq: number,
  previous: DayNews,
  current: DayNews,
  volumeOut: Float64Array,
  sentimentOut: Float64Array
): void => {
  const n = current.offsets.length - 1
  for (let i = 0; i < n; i++) fillNewsRow(tq, previous, current, i, volumeOut, sentimentOut, i)
}

/**
 * Both columns of ticker `i` alone at `tq`, written at slot `slot` of the
 * outputs; `previous` and `current` need only hold ticker `i`'s mentions
 * (as `tickerDayNews` gives them).
 */
export const fillNewsRow = (
  tq: number,
  previous: DayNews,
  current: DayNews,
  i: number,
  volumeOut: Float64Array,
  sentimentOut: Float64Array,
  slot: number
): void => {
  const from = tq - NEWS_WINDOW_MS
  let volume = 0
  let weight = 0
  let weighted = 0
  for (let k = 0; k < 2; k++) {
    const d = k === 0 ? previous : current
    const { at, relevance, sentiment } = d
    const end = d.offsets[i + 1]
    for (let j = d.offsets[i]; j < end; j++) {
      const t = at[j]
      if (t <= from) continue
      if (t > tq) break
      const r = relevance[j]
      if (r >= NEWS_RELEVANCE_MIN) volume++
      if (r > 0) {
        weight += r
        weighted += r * sentiment[j]
      }
    }
  }
  volumeOut[slot] = volume
  sentimentOut[slot] = volume > 0 && weight > 0 ? (weighted / weight) * Math.tanh(volume / NEWS_ATTENUATION) : 0
}

/** Ticker `i`'s mentions of one day with from < at <= to, appended to `out` in time order. */
export const collectMentions = (d: DayNews, i: number, from: number, to: number, out: Array<NewsMention>): void => {
  const end = d.offsets[i + 1]
  for (let j = d.offsets[i]; j < end; j++) {
    const t = d.at[j]
    if (t > from && t <= to) out.push({ at: t, relevance: d.relevance[j], sentiment: d.sentiment[j] })
  }
}
