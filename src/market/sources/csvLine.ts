/**
 * Reading the lines of a CSV import file, shared by the bars and splits parsers: a line's fields
 * (`splitCsvLine`), the header's columns by name (`headerColumns`), a numeric field checked for
 * sign (`num`), and the error that names the bad line (`CsvImportError`, `file:line: reason`).
 */
export class CsvImportError extends Error {
  constructor(
    readonly line: number,
    readonly reason: string,
    readonly file = "input"
  ) {
    // line 0: the file as a whole (its compression, its reading)
    super(line === 0 ? `${file}: ${reason}` : `${file}:${line}: ${reason}`)
  }
}

/** Splits one CSV line; handles double-quoted fields with "" escapes. */
export const splitCsvLine = (line: string): Array<string> => {
  if (!line.includes('"')) return line.split(",")
  const out: Array<string> = []
  let field = ""
  let quoted = false
  for (let i = 0; i < line.length; i++) {
    const c = line[i]
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        field += '"'
        i++
      } else if (c === '"') quoted = false
      else field += c
    } else if (c === '"') quoted = true
    else if (c === ",") {
      out.push(field)
      field = ""
    } else field += c
  }
  out.push(field)
  return out
}

const normalizeHeader = (h: string) =>
  h
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, "_")

/**
 * A header's column names, normalized (trimmed, lower case, blanks and dashes as `_`), and `idx`:
 * the column of the first of some candidate names the header has, -1 when it has none.
 */
export const headerColumns = (header: ReadonlyArray<string>) => {
  const names = header.map(normalizeHeader)
  const idx = (...candidates: Array<string>) => {
    for (const c of candidates) {
      const i = names.indexOf(c)
      if (i >= 0) return i
    }
    return -1
  }
  return { names, idx }
}

/** A numeric field: finite, and > 0 (`positive`) or >= 0 (`nonnegative`); else the line's error. */
export const num = (
  raw: string | undefined,
  what: string,
  line: number,
  file: string,
  min: "positive" | "nonnegative"
) => {
  // Number() reads surrounding blanks itself, and reads "" and blanks alone as 0
  const v = raw === undefined || raw.length === 0 ? Number.NaN : Number(raw)
  if (!Number.isFinite(v) || (v === 0 && raw!.trim() === "")) {
    throw new CsvImportError(line, `${what} is not a number (${JSON.stringify((raw ?? "").trim())})`, file)
  }
  if (min === "positive" ? v <= 0 : v < 0) {
    throw new CsvImportError(line, `${what} must be ${min === "positive" ? "> 0" : ">= 0"} (got ${raw!.trim()})`, file)
  }
  return v
}
