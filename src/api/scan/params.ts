/**
 * Scan parameters shared by the scan endpoints and saved rules: the order
 * column, the direction and the extra `fields`, validated against the column
 * catalog.
 */
import { Either } from "effect"
import { columnByName } from "../../market/catalog.js"
import { ROW_COLUMNS } from "../common/rows.js"
import { BadRequest } from "../errors.js"

export const DEFAULT_ORDER = "day_change_pct"
export const DEFAULT_DIR = "desc" as const
export const MAX_Q_LENGTH = 4000

/** The columns of every scan row, before `fields`. */
export const DEFAULT_COLUMNS: ReadonlyArray<string> = [
  "ticker",
  "name",
  "asset_type",
  "price",
  "day_change_pct",
  "gap_pct",
  "relative_volume",
  "market_cap"
]

const IDENT = /^[a-z0-9_]+$/

export const validateOrder = (order: string): Either.Either<string, BadRequest> =>
  IDENT.test(order) && columnByName.has(order)
    ? Either.right(order)
    : Either.left(
        new BadRequest({
          message: `order must be a column of the ticker row (lowercase letters, digits, underscore), e.g. day_change_pct; got ${JSON.stringify(order)}`
        })
      )

export const validateDir = (dir: string): Either.Either<"asc" | "desc", BadRequest> =>
  dir === "asc" || dir === "desc"
    ? Either.right(dir)
    : Either.left(new BadRequest({ message: `dir must be asc or desc; got ${JSON.stringify(dir)}` }))

/**
 * `fields` as a list: a comma-separated string or (in a JSON body) an array;
 * blanks dropped, duplicates removed; `*` alone asks for every column. 400
 * naming unknown columns.
 */
export const validateFields = (raw: string | ReadonlyArray<string>): Either.Either<Array<string>, BadRequest> => {
  const items = (typeof raw === "string" ? raw.split(",") : raw).map((f) => f.trim()).filter((f) => f !== "")
  const out: Array<string> = []
  const unknown: Array<string> = []
  for (const f of items) {
    if (f === "*" || (IDENT.test(f) && columnByName.has(f))) {
      if (!out.includes(f)) out.push(f)
    } else unknown.push(f)
  }
  if (unknown.length > 0) {
    return Either.left(
      new BadRequest({
        message: `fields: unknown column${unknown.length > 1 ? "s" : ""} ${unknown
          .slice(0, 20)
          .map((f) => JSON.stringify(f))
          .join(", ")}`,
        details: { unknown_fields: unknown.slice(0, 100) }
      })
    )
  }
  if (out.includes("*") && out.length > 1) {
    return Either.left(new BadRequest({ message: "fields: * (every column) cannot be combined with other columns" }))
  }
  return Either.right(out)
}

/** The columns of a result row: the defaults, the order column, then the extra fields (every column for `*`). */
export const rowColumns = (order: string, fields: ReadonlyArray<string>): ReadonlyArray<string> => {
  if (fields.includes("*")) return ROW_COLUMNS
  const out = [...DEFAULT_COLUMNS]
  for (const c of [order, ...fields]) if (!out.includes(c)) out.push(c)
  return out
}
