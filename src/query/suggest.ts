/**
 * "Did you mean" suggestions: the closest candidate by optimal-string-alignment
 * distance (insertions, deletions, substitutions, adjacent transpositions),
 * accepted when the distance is small relative to the word's length.
 */
const distance = (a: string, b: string, limit: number): number => {
  if (Math.abs(a.length - b.length) > limit) return limit + 1
  const rows = a.length + 1
  const cols = b.length + 1
  const d: Array<Int32Array> = []
  for (let i = 0; i < rows; i++) {
    const row = new Int32Array(cols)
    row[0] = i
    d.push(row)
  }
  for (let j = 0; j < cols; j++) d[0]![j] = j
  for (let i = 1; i < rows; i++) {
    let best = limit + 1
    for (let j = 1; j < cols; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1)
      d[i]![j] = v
      if (v < best) best = v
    }
    if (best > limit) return limit + 1
  }
  return d[rows - 1]![cols - 1]!
}

/** The closest of `candidates` to `word`, if any is close enough. */
export const suggest = (word: string, candidates: Iterable<string>): string | undefined => {
  const w = word.toLowerCase()
  const limit = Math.max(1, Math.min(3, Math.floor(w.length / 3)))
  let best: string | undefined
  let bestDistance = limit + 1
  for (const c of candidates) {
    const lc = c.toLowerCase()
    // a candidate that contains the word (or the reverse) is a good guess for long-enough words
    const dist = w.length >= 3 && (lc.startsWith(w) || w.startsWith(lc)) ? 1 : distance(w, lc, limit)
    if (dist < bestDistance || (dist === bestDistance && best !== undefined && c < best)) {
      best = c
      bestDistance = dist
    }
  }
  return bestDistance <= limit ? best : undefined
}
