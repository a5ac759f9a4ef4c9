/** Small helpers the benchmarks share: a seeded random draw, quantiles. */

/** A random number generator in [0, 1) from `seed` (the same draws on every run). */
export const seededRandom = (seed: number) => {
  let s = seed
  return () => {
    s = (Math.imul(s, 1103515245) + 12345) & 0x7fffffff
    return s / 0x7fffffff
  }
}

/** The `q` quantile of `xs` (NaN when empty). */
export const quantile = (xs: ReadonlyArray<number>, q: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? Number.NaN
}
