/** Small helpers the benchmarks share: a seeded random draw, quantiles, a timed run. */

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

/** Runs `f` once: its value, wall time and CPU time (user + system) in ms. */
export const timed = <A>(f: () => A): { value: A; ms: number; cpuMs: number } => {
  const c0 = process.cpuUsage()
  const t0 = performance.now()
  const value = f()
  const c = process.cpuUsage(c0)
  return { value, ms: performance.now() - t0, cpuMs: (c.user + c.system) / 1000 }
}
