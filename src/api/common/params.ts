/**
 * Request parameters every group reads the same way: as-of dates, page sizes,
 * integers in the query string, and query-parameter structs that refuse names
 * they do not declare.
 */
import { Either, Schema } from "effect"
import { BadRequest } from "../errors.js"

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
/** a time of day 00:00–23:59(:59) and a UTC offset up to ±23:59, as ISO 8601 allows */
const DATETIME = /^(\d{4}-\d{2}-\d{2})T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-]([01]\d|2[0-3]):?[0-5]\d)$/

/**
 * Parses an `asof` (or `from`/`to`) value: `YYYY-MM-DD` or a full ISO
 * timestamp, whose time component is truncated to the date. 400 naming the
 * parameter otherwise.
 */
export const parseDate = (name: string, raw: string): Either.Either<string, BadRequest> => {
  const text = raw.trim()
  const m = DATE.exec(text) ?? DATETIME.exec(text)
  const date = m === null ? undefined : m[0].length === 10 ? m[0] : m[1]
  const valid =
    date !== undefined &&
    !Number.isNaN(Date.parse(`${date}T00:00:00Z`)) &&
    // the whole timestamp is an instant too: callers that keep the time read it with Date.parse
    (m![0].length === 10 || !Number.isNaN(Date.parse(text))) &&
    new Date(`${date}T00:00:00Z`).toISOString().startsWith(date) &&
    date >= "1990-01-01" &&
    date <= "2100-12-31"
  return valid
    ? Either.right(date!)
    : Either.left(
        new BadRequest({
          message: `${name} must be a date YYYY-MM-DD or an ISO 8601 timestamp such as 2026-03-02T15:04:05Z (got ${JSON.stringify(raw)})`
        })
      )
}

/** A page size: default when absent, 400 outside 1..max. */
export const pageSize = (raw: number | undefined, max: number, fallback: number): Either.Either<number, BadRequest> =>
  raw === undefined
    ? Either.right(fallback)
    : Number.isInteger(raw) && raw >= 1 && raw <= max
      ? Either.right(raw)
      : Either.left(new BadRequest({ message: `limit must be an integer from 1 to ${max} (got ${raw})` }))

/** URL parameters: an integer given as text. */
export const IntParam = Schema.NumberFromString.pipe(Schema.int())

/**
 * A URL-parameter struct that refuses parameters it does not name (400 naming
 * them), so a typo is never silently ignored.
 */
export const StrictParams = <F extends Schema.Struct.Fields>(fields: F) =>
  Schema.Struct(fields).annotations({ parseOptions: { onExcessProperty: "error" } })
