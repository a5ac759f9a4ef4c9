/**
 * Counter-based randomness: every draw is a pure function of its coordinates
 * (seed, stream, day, ticker, draw index), never of a sequential PRNG state, so
 * any day of any ticker can be generated alone, in any order, any number of
 * times, with the same result.
 *
 * The mixer is MurmurHash3's 32-bit finalizer (`fmix32`), a bijection with full
 * avalanche. Keys are combined as `hash2(a, b) = fmix32(a ^ fmix32(b + φ))`.
 * The hot loops precompute a key per (stream, day, draw) and per ticker, and
 * take one uniform as `fmix32(drawKey ^ tickerKey)`: one finalizer per number.
 */

/** MurmurHash3 fmix32, as an unsigned 32-bit integer. */
export const fmix32 = (x: number): number => {
  let h = x | 0
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}

/** Combines two 32-bit keys (order matters). */
export const hash2 = (a: number, b: number): number => fmix32(a ^ fmix32((b + 0x9e3779b9) | 0))

/** FNV-1a of a string (used for ticker and sector keys, so they do not depend on list order). */
export const fnv1a = (text: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

const TWO_POW_MINUS_32 = 2 ** -32

/** A 32-bit hash to a uniform in the open interval (0, 1). */
export const toUnit = (h: number): number => ((h >>> 0) + 0.5) * TWO_POW_MINUS_32

/** Unit-variance scales of the sum of four 16-bit (resp. two 11-bit) uniform integers. */
export const IH4_SCALE = Math.sqrt(3) / 65536
export const IH2_11_SCALE = Math.sqrt(6) / 2048

/** Uniform (0, 1) of `hash2(a, b)`. */
export const unit2 = (a: number, b: number): number => toUnit(hash2(a, b))

/** Standard normal from two uniforms (Box–Muller, cosine branch). */
export const normalOf = (u1: number, u2: number): number => Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2)

/**
 * An approximately standard normal (Irwin–Hall sum of four 16-bit uniforms,
 * bounded at ±3.46) of a key pair, with no transcendental call: for slow
 * quantities where the Gaussian tail does not matter.
 */
export const quickNormal = (a: number, b: number): number => {
  const h0 = hash2(a, b)
  const h1 = fmix32(h0 ^ 0x6a09e667)
  return ((h0 & 0xffff) + (h0 >>> 16) + (h1 & 0xffff) + (h1 >>> 16) - 131070) * IH4_SCALE
}

/** Standard normal of a key pair: two uniforms from `hash2(a, b)` and `hash2(a, b + 1)`. */
export const normal2 = (a: number, b: number): number => normalOf(unit2(a, b), unit2(a, (b + 1) | 0))

/** Bound on the unit-variance fat-tailed shocks, so that a one-in-a-billion draw cannot produce an absurd price. */
export const T4_CLAMP = 10

/** Logistic variate scaled to unit variance (a cheap, slightly fat-tailed stand-in for a normal). */
export const LOGISTIC_UNIT = Math.sqrt(3) / Math.PI

export const logisticOf = (u: number): number => Math.log(u / (1 - u)) * LOGISTIC_UNIT

/** Poisson(λ) by inversion of one uniform; above λ = 80, a rounded normal approximation. */
export const poissonOf = (lambda: number, u: number): number => {
  if (!(lambda > 0)) return 0
  if (lambda > 80) {
    const n = Math.round(lambda + Math.sqrt(lambda) * logisticOf(u))
    return Math.max(n, 0)
  }
  let k = 0
  let p = Math.exp(-lambda)
  let cdf = p
  while (u > cdf && k < 1000) {
    k++
    p *= lambda / k
    cdf += p
  }
  return k
}

/**
 * A smooth random process of time: standard normals at knots every `spacing`
 * units, linearly interpolated. Random access, so the value at `x` needs two
 * hashes whatever was asked before.
 */
export const knotProcess = (key: number, x: number, spacing: number): number => {
  const s = x / spacing
  const k = Math.floor(s)
  const f = s - k
  const a = normal2(key, k * 2)
  const b = normal2(key, (k + 1) * 2)
  return a + (b - a) * f
}

// ---------------------------------------------------------------------------
// Quantile tables: a few bits of a hash select a precomputed quantile, so the hot
// loops draw fat-tailed and skewed variates with no logarithm.

const midQuantiles = (size: number, quantile: (p: number) => number): Float64Array =>
  Float64Array.from({ length: size }, (_, j) => quantile((j + 0.5) / size))

/** Inverse of the Gamma(2, 1) CDF 1 - e^-x (1 + x), by bisection. */
const gamma2Quantile = (p: number): number => {
  let lo = 0
  let hi = 60
  for (let it = 0; it < 200; it++) {
    const mid = (lo + hi) / 2
    if (1 - Math.exp(-mid) * (1 + mid) < p) lo = mid
    else hi = mid
  }
  return (lo + hi) / 2
}

export const SCALE_BITS = 10
/**
 * Scale-mixture table for a unit-variance Student-t(4): with z standard normal
 * and G = χ²(4)/2 ~ Gamma(2, 1), t₄/√2 = z·√(4/χ²(4))/√2 = z·G^-½. The
 * 2^SCALE_BITS entries are G^-½ at mid-quantiles (largest ≈ 5.7), renormalised
 * so that the mean of their squares is exactly 1 (unit variance for any
 * unit-variance z).
 */
export const T4_SCALES: Float64Array = (() => {
  const t = midQuantiles(1 << SCALE_BITS, (p) => 1 / Math.sqrt(gamma2Quantile(p)))
  let m2 = 0
  for (const s of t) m2 += s * s
  const norm = 1 / Math.sqrt(m2 / t.length)
  return t.map((s) => s * norm)
})()

export const EXP_BITS = 10
/** Standard exponential at mid-quantiles (mean ≈ 1, largest ≈ 7.6). */
export const EXPONENTIALS: Float64Array = midQuantiles(1 << EXP_BITS, (p) => -Math.log(1 - p))

export const LOGNORMAL_BITS = 12
/**
 * exp(0.35·x) for a unit-variance logistic x at mid-quantiles, normalised to
 * mean 1: a lognormal-like volume noise with a slightly fat tail.
 */
export const VOLUME_NOISE: Float64Array = (() => {
  const t = midQuantiles(1 << LOGNORMAL_BITS, (p) => Math.exp(0.35 * LOGISTIC_UNIT * Math.log(p / (1 - p))))
  let mean = 0
  for (const v of t) mean += v
  mean /= t.length
  return t.map((v) => v / mean)
})()
