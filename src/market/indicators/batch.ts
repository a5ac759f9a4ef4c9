/**
 * Straightforward whole-array reference implementations of every indicator:
 * each output index is computed from the input arrays directly (windows are
 * re-summed, Wilder averages re-run from the start). Used by the tests as the
 * truth for the incremental engine and by benchmarks as the full-recomputation
 * baseline. `null` where there is not enough history.
 */
export type Series = ReadonlyArray<number>
export type Values = Array<number | null>

const nulls = (n: number): Values => new Array<number | null>(n).fill(null)

const windowSum = (xs: Series, from: number, to: number): number => {
  let s = 0
  for (let i = from; i <= to; i++) s += xs[i]
  return s
}

/** Simple moving average of the last n values, current included. */
export const sma = (xs: Series, n: number): Values =>
  xs.map((_, t) => (t >= n - 1 ? windowSum(xs, t - n + 1, t) / n : null))

/** Mean of the n values before index t (the current one excluded). */
export const trailingMean = (xs: Series, n: number): Values =>
  xs.map((_, t) => (t >= n ? windowSum(xs, t - n, t - 1) / n : null))

/**
 * EMA with alpha = 2 / (n + 1) over a series that may start with nulls: the
 * first value is the SMA of the first n non-null values, then
 * alpha x value + (1 - alpha) x previous.
 */
export const ema = (xs: ReadonlyArray<number | null>, n: number): Values => {
  const out = nulls(xs.length)
  const start = xs.findIndex((x) => x !== null)
  if (start < 0) return out
  const alpha = 2 / (n + 1)
  let prev = Number.NaN
  for (let t = start + n - 1; t < xs.length; t++) {
    if (t === start + n - 1) {
      let s = 0
      for (let i = start; i <= t; i++) s += xs[i] as number
      prev = s / n
    } else {
      prev = alpha * (xs[t] as number) + (1 - alpha) * prev
    }
    out[t] = prev
  }
  return out
}

export interface Macd {
  readonly line: Values
  readonly signal: Values
  readonly histogram: Values
}

export const macd = (closes: Series, fast = 12, slow = 26, signalPeriod = 9): Macd => {
  const f = ema(closes, fast)
  const s = ema(closes, slow)
  const line = closes.map((_, t) => (f[t] !== null && s[t] !== null ? (f[t] as number) - (s[t] as number) : null))
  const signal = ema(line, signalPeriod)
  const histogram = line.map((m, t) => (m !== null && signal[t] !== null ? m - (signal[t] as number) : null))
  return { line, signal, histogram }
}

/**
 * Wilder's smoothing of a series defined from index 1: the value at index n
 * is the mean of indexes 1..n, then (previous x (n - 1) + x) / n.
 */
export const wilderFromSecond = (xs: ReadonlyArray<number | null>, n: number): Values => {
  const out = nulls(xs.length)
  let prev = Number.NaN
  for (let t = n; t < xs.length; t++) {
    if (t === n) {
      let s = 0
      for (let i = 1; i <= n; i++) s += xs[i] as number
      prev = s / n
    } else {
      prev = (prev * (n - 1) + (xs[t] as number)) / n
    }
    out[t] = prev
  }
  return out
}

const changes = (closes: Series): Values => closes.map((c, t) => (t === 0 ? null : c - closes[t - 1]))

/** RSI with Wilder's smoothing; 100 when the average loss is 0 (50 when the average gain is 0 too). */
export const rsi = (closes: Series, n = 14): Values => {
  const d = changes(closes)
  const gains = wilderFromSecond(
    d.map((x) => (x === null ? null : Math.max(x, 0))),
    n
  )
  const losses = wilderFromSecond(
    d.map((x) => (x === null ? null : Math.max(-x, 0))),
    n
  )
  return gains.map((g, t) => {
    const l = losses[t]
    if (g === null || l === null) return null
    if (l === 0) return g === 0 ? 50 : 100
    return 100 - 100 / (1 + g / l)
  })
}

/** True range from the second bar: max(high, previous close) - min(low, previous close). */
export const trueRange = (highs: Series, lows: Series, closes: Series): Values =>
  closes.map((_, t) => (t === 0 ? null : Math.max(highs[t], closes[t - 1]) - Math.min(lows[t], closes[t - 1])))

export const atr = (highs: Series, lows: Series, closes: Series, n = 14): Values =>
  wilderFromSecond(trueRange(highs, lows, closes), n)

export interface Directional {
  readonly plusDi: Values
  readonly minusDi: Values
  readonly dx: Values
  readonly adx: Values
}

/** +DI, -DI, DX and ADX (Wilder); ADX's first value is the mean of the first n DX values. */
export const directional = (highs: Series, lows: Series, closes: Series, n = 14): Directional => {
  const len = closes.length
  const plusDm = nulls(len)
  const minusDm = nulls(len)
  for (let t = 1; t < len; t++) {
    const up = highs[t] - highs[t - 1]
    const down = lows[t - 1] - lows[t]
    plusDm[t] = up > down && up > 0 ? up : 0
    minusDm[t] = down > up && down > 0 ? down : 0
  }
  const tr = atr(highs, lows, closes, n)
  const p = wilderFromSecond(plusDm, n)
  const m = wilderFromSecond(minusDm, n)
  const plusDi = nulls(len)
  const minusDi = nulls(len)
  const dx = nulls(len)
  for (let t = n; t < len; t++) {
    const a = tr[t] as number
    const pdi = a > 0 ? (100 * (p[t] as number)) / a : 0
    const mdi = a > 0 ? (100 * (m[t] as number)) / a : 0
    plusDi[t] = pdi
    minusDi[t] = mdi
    dx[t] = pdi + mdi > 0 ? (100 * Math.abs(pdi - mdi)) / (pdi + mdi) : 0
  }
  const adx = nulls(len)
  let prev = Number.NaN
  for (let t = 2 * n - 1; t < len; t++) {
    if (t === 2 * n - 1) {
      let s = 0
      for (let i = n; i <= t; i++) s += dx[i] as number
      prev = s / n
    } else {
      prev = (prev * (n - 1) + (dx[t] as number)) / n
    }
    adx[t] = prev
  }
  return { plusDi, minusDi, dx, adx }
}

export interface Bollinger {
  readonly middle: Values
  readonly upper: Values
  readonly lower: Values
  readonly width: Values
  readonly percentB: Values
}

/** Bollinger bands with the population standard deviation (two-pass). */
export const bollinger = (closes: Series, n = 20, k = 2): Bollinger => {
  const len = closes.length
  const out: Bollinger = {
    middle: nulls(len),
    upper: nulls(len),
    lower: nulls(len),
    width: nulls(len),
    percentB: nulls(len)
  }
  for (let t = n - 1; t < len; t++) {
    const mean = windowSum(closes, t - n + 1, t) / n
    let ss = 0
    for (let i = t - n + 1; i <= t; i++) ss += (closes[i] - mean) ** 2
    const raw = Math.sqrt(ss / n)
    // a flat window: rounding noise below 1e-10 of the mean counts as 0 (as in the engine)
    const sd = raw <= 1e-10 * Math.abs(mean) ? 0 : raw
    const upper = mean + k * sd
    const lower = mean - k * sd
    out.middle[t] = mean
    out.upper[t] = upper
    out.lower[t] = lower
    out.width[t] = (upper - lower) / mean
    out.percentB[t] = upper > lower ? (closes[t] - lower) / (upper - lower) : null
  }
  return out
}

export const rollingMax = (xs: Series, n: number): Values =>
  xs.map((_, t) => (t >= n - 1 ? Math.max(...xs.slice(t - n + 1, t + 1)) : null))

export const rollingMin = (xs: Series, n: number): Values =>
  xs.map((_, t) => (t >= n - 1 ? Math.min(...xs.slice(t - n + 1, t + 1)) : null))

export interface Stochastic {
  readonly k: Values
  readonly d: Values
  readonly williamsR: Values
}

/** %K over n bars (null on a flat range), %D = SMA of the last d %K values (all present), Williams %R. */
export const stochastic = (highs: Series, lows: Series, closes: Series, n = 14, d = 3): Stochastic => {
  const hh = rollingMax(highs, n)
  const ll = rollingMin(lows, n)
  const k = closes.map((c, t) => {
    const h = hh[t]
    const l = ll[t]
    return h === null || l === null || h === l ? null : (100 * (c - l)) / (h - l)
  })
  const williamsR = closes.map((c, t) => {
    const h = hh[t]
    const l = ll[t]
    return h === null || l === null || h === l ? null : (-100 * (h - c)) / (h - l)
  })
  const dd = k.map((_, t) => {
    if (t < d - 1) return null
    const w = k.slice(t - d + 1, t + 1)
    return w.every((x) => x !== null) ? (w as Array<number>).reduce((a, b) => a + b, 0) / d : null
  })
  return { k, d: dd, williamsR }
}

/** On-balance volume starting at 0 on the first bar. */
export const obv = (closes: Series, volumes: Series): Values => {
  let acc = 0
  return closes.map((c, t) => {
    if (t > 0) acc += c > closes[t - 1] ? volumes[t] : c < closes[t - 1] ? -volumes[t] : 0
    return acc
  })
}

/** Annualized volatility: sample standard deviation (two-pass) of the last n log returns x sqrt(periodsPerYear). */
export const volatility = (closes: Series, n: number, periodsPerYear: number): Values =>
  closes.map((_, t) => {
    if (t < n) return null
    const r: Array<number> = []
    for (let i = t - n + 1; i <= t; i++) r.push(Math.log(closes[i] / closes[i - 1]))
    const mean = r.reduce((a, b) => a + b, 0) / n
    const ss = r.reduce((a, x) => a + (x - mean) ** 2, 0)
    return Math.sqrt(ss / (n - 1)) * Math.sqrt(periodsPerYear)
  })

/** close[t] / close[t - k] - 1. */
export const trailingReturn = (closes: Series, k: number): Values =>
  closes.map((c, t) => (t >= k ? c / closes[t - k] - 1 : null))
