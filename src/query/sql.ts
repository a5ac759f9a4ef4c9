/**
 * Compiles the typed tree to parameterized PostgreSQL. Only whitelisted
 * identifiers (catalog column names, the caller's table name) and fixed
 * keywords/constants of this module reach the SQL text; every value from `q`
 * travels as a bind parameter (`$n::float8`, `$n::text`, `$n::boolean`).
 *
 * The emitted SQL is total: it cannot raise an error whatever the data, so
 * PostgreSQL's evaluation order, short-circuiting and plan-time constant
 * folding cannot change a result. Arithmetic is guarded exactly as in
 * `semantics.ts`; an operand that is not a column, literal or cross-ticker
 * reference is bound once in a scalar subquery (`OFFSET 0` keeps the planner
 * from inlining it back) instead of being repeated in the guard.
 *
 * Target table: one row per ticker, a `ticker` text column and one column per
 * catalog column (`double precision`, `boolean`, `text`).
 */
import { isRankFn } from "./functions.js"
import type { Node, Type } from "./ir.js"
import { BIG, lowerAscii, SMALL } from "./semantics.js"

export interface SqlFragment {
  readonly text: string
  readonly params: ReadonlyArray<unknown>
}

export interface SqlOptions {
  /**
   * The table: `name` or `schema.name`, lower-case identifiers. Column references are qualified with
   * it, so the statement must name the table this way (not through an alias).
   */
  readonly table: string
  /** Number of the first placeholder (default 1), to embed the fragment in a larger statement. */
  readonly firstParam?: number | undefined
  /**
   * The tickers cross-sectional functions (PCT_RANK, RANK, ZSCORE) rank among, bound once as a
   * `text[]`; default every row of the table.
   */
  readonly scope?: ReadonlyArray<string> | undefined
}

const TABLE = /^[a-z_][a-z0-9_]{0,62}(\.[a-z_][a-z0-9_]{0,62})?$/

const quoteTable = (table: string): string => {
  if (!TABLE.test(table)) throw new Error(`not a safe table identifier: ${table}`)
  return table
    .split(".")
    .map((p) => `"${p}"`)
    .join(".")
}

const PG_TYPE: Record<Type, string> = { numeric: "float8", string: "text", boolean: "boolean" }

const BIG_SQL = `'${BIG}'::float8`
const NEG_BIG_SQL = `'${-BIG}'::float8`
const SMALL_SQL = `'${SMALL}'::float8`
const ZERO_SQL = "'0'::float8"
const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
const LOWER = "abcdefghijklmnopqrstuvwxyz"

/** |x| ≥ 1e300 → NULL, referencing x once (GREATEST/LEAST skip NULLs, so NULL still ends as NULL). */
const inRange = (x: string) =>
  `NULLIF(NULLIF(LEAST(GREATEST(${x}, ${NEG_BIG_SQL}), ${BIG_SQL}), ${BIG_SQL}), ${NEG_BIG_SQL})`

const mulSql = (x: string, y: string) =>
  inRange(
    `CASE WHEN abs(${y}) > 1 THEN (CASE WHEN abs(${x}) > ${BIG_SQL} / abs(${y}) THEN NULL ELSE ${x} * ${y} END)` +
      ` WHEN abs(${y}) < 1 AND ${y} <> 0 THEN (CASE WHEN abs(${x}) < ${SMALL_SQL} / abs(${y}) THEN ${ZERO_SQL} ELSE ${x} * ${y} END)` +
      ` ELSE ${x} * ${y} END`
  )

const divSql = (x: string, y: string) =>
  inRange(
    `CASE WHEN ${y} = 0 THEN NULL` +
      ` WHEN abs(${y}) < 1 THEN (CASE WHEN abs(${x}) > ${BIG_SQL} * abs(${y}) THEN NULL ELSE ${x} / ${y} END)` +
      ` WHEN abs(${y}) > 1 THEN (CASE WHEN abs(${x}) < ${SMALL_SQL} * abs(${y}) THEN ${ZERO_SQL} ELSE ${x} / ${y} END)` +
      ` ELSE ${x} / ${y} END`
  )

const modSql = (x: string, y: string) => inRange(`${x} - ${y} * trunc(${divSql(x, y)})`)

const simple = (n: Node) => n.k === "lit" || n.k === "col" || n.k === "xref"

const collateC = (x: string, type: Type) => (type === "string" ? `${x} COLLATE "C"` : x)

/** What the emitters of one statement share: its parameters, alias counter and scope. */
interface Shared {
  readonly params: Array<unknown>
  readonly first: number
  bindings: number
  readonly scope: ReadonlyArray<string> | undefined
  /** the scope's placeholder, bound on first use */
  scopeParam: string | undefined
}

class Emitter {
  readonly params: Array<unknown>
  /**
   * @param table the table (quoted)
   * @param ref what its columns are qualified with: the table, or inside a cross-sectional call's
   *   subquery the alias of the row ranked
   */
  constructor(
    readonly table: string,
    readonly shared: Shared,
    readonly ref: string = table
  ) {
    this.params = shared.params
  }

  get first(): number {
    return this.shared.first
  }

  get bindings(): number {
    return this.shared.bindings
  }

  set bindings(n: number) {
    this.shared.bindings = n
  }

  /** ` AND <alias>."ticker" = ANY(<scope>)`, or nothing when every row is in scope */
  inScope(alias: string): string {
    const sh = this.shared
    if (sh.scope === undefined) return ""
    if (sh.scopeParam === undefined) {
      sh.params.push(sh.scope)
      sh.scopeParam = `$${sh.first + sh.params.length - 1}::text[]`
    }
    return ` AND ${alias}."ticker" = ANY(${sh.scopeParam})`
  }

  /**
   * PCT_RANK / RANK: the window function over the rows in scope whose argument is not NULL (in the
   * row's partition), the row's own value picked by ticker (none: NULL). ZSCORE: the exact numeric
   * mean and population deviation of those rows (the argument as its shortest text, which reads back
   * as the same double), the result rounded to 10 decimals as the evaluator does.
   */
  rank(n: Extract<Node, { k: "call" }>): string {
    const b = ++this.bindings
    const w = `"_w${b}"`
    const inner = new Emitter(this.table, this.shared, w)
    const x = inner.emit(n.args[0]!)
    const by = n.args[1]
    const part = by?.k === "col" ? `${w}."${by.name}"` : "NULL::text"
    const rows = `(SELECT ${w}."ticker" AS t, ${part} AS p, ${x} AS x FROM ${this.table} AS ${w} WHERE TRUE${this.inScope(w)}) AS _a${b}`
    const self = `${this.ref}."ticker"`
    if (n.fn === "ZSCORE") {
      const mine = this.emit(n.args[0]!)
      const samePart = by?.k === "col" ? ` AND _a${b}.p IS NOT DISTINCT FROM ${this.ref}."${by.name}"` : ""
      const stats = `(SELECT avg(_a${b}.x::text::numeric) AS a, stddev_pop(_a${b}.x::text::numeric) AS sd, min(_a${b}.x) AS lo, max(_a${b}.x) AS hi FROM ${rows} WHERE _a${b}.x IS NOT NULL${samePart}) AS _z${b}`
      const own = this.shared.scope === undefined ? "" : ` WHERE ${self} = ANY(${this.shared.scopeParam})`
      return `(SELECT CASE WHEN _z${b}.lo = _z${b}.hi THEN NULL ELSE round(((${mine})::text::numeric - _z${b}.a) / _z${b}.sd, 10)::float8 END FROM ${stats}${own})::float8`
    }
    const win =
      n.fn === "RANK"
        ? `rank() OVER (PARTITION BY _a${b}.p ORDER BY _a${b}.x DESC)::float8`
        : `percent_rank() OVER (PARTITION BY _a${b}.p ORDER BY _a${b}.x)`
    // the cast keeps `x IN ((SELECT …))` from being read as an IN-subquery (see xref)
    return `(SELECT _r${b}.v FROM (SELECT _a${b}.t, ${win} AS v FROM ${rows} WHERE _a${b}.x IS NOT NULL) AS _r${b} WHERE _r${b}.t = ${self})::float8`
  }

  param(value: unknown, type: Type): string {
    this.params.push(value)
    return `$${this.first + this.params.length - 1}::${PG_TYPE[type]}`
  }

  /**
   * An operand referenced more than once — by a guard, or by PostgreSQL itself, which expands
   * `a BETWEEN b AND c` to `a >= b AND a <= c` and `a IN (x, y)` to `a = x OR a = y` — is repeated
   * when simple and otherwise bound once, so that the SQL (and its planning) stays linear in `q`.
   */
  bound(arg: Node, build: (x: string) => string): string {
    const a = this.emit(arg)
    if (simple(arg)) return build(a)
    const b = ++this.bindings
    const x = `_q${b}x`
    return `(SELECT ${build(x)} FROM (SELECT ${a} AS ${x} OFFSET 0) AS _q${b})`
  }

  guarded(left: Node, right: Node, build: (x: string, y: string) => string): string {
    const l = this.emit(left)
    const r = this.emit(right)
    if (simple(left) && simple(right)) return build(l, r)
    const b = ++this.bindings
    const x = `_q${b}x`
    const y = `_q${b}y`
    return `(SELECT ${build(x, y)} FROM (SELECT ${l} AS ${x}, ${r} AS ${y} OFFSET 0) AS _q${b})`
  }

  emit(n: Node): string {
    switch (n.k) {
      case "lit":
        return n.value === null ? `NULL::${PG_TYPE[n.type]}` : this.param(n.value, n.type)
      case "col":
        return `${this.ref}."${n.name}"`
      case "xref": {
        const t = this.param(n.ticker, "string")
        // the cast keeps `x IN ((SELECT …))` from being read as an IN-subquery (empty → FALSE, not NULL)
        return `(SELECT _xr."${n.name}" FROM ${this.table} AS _xr WHERE _xr."ticker" = ${t})::${PG_TYPE[n.type]}`
      }
      case "neg":
        return `(-${this.emit(n.arg)})`
      case "arith":
        switch (n.op) {
          case "+":
            return inRange(`${this.emit(n.left)} + ${this.emit(n.right)}`)
          case "-":
            return inRange(`${this.emit(n.left)} - ${this.emit(n.right)}`)
          case "*":
            return this.guarded(n.left, n.right, mulSql)
          case "/":
            return this.guarded(n.left, n.right, divSql)
          case "%":
            return this.guarded(n.left, n.right, modSql)
        }
        break
      case "cmp": {
        const l = this.emit(n.left)
        const r = this.emit(n.right)
        return `(${l} ${n.op} ${collateC(r, n.left.type)})`
      }
      case "and":
        return `(${n.args.map((a) => this.emit(a)).join(" AND ")})`
      case "or":
        return `(${n.args.map((a) => this.emit(a)).join(" OR ")})`
      case "not":
        return `(NOT ${this.emit(n.arg)})`
      case "between": {
        const low = this.emit(n.low)
        const high = this.emit(n.high)
        return this.bound(
          n.arg,
          (a) => `(${collateC(a, n.arg.type)} ${n.negated ? "NOT BETWEEN" : "BETWEEN"} ${low} AND ${high})`
        )
      }
      case "in": {
        const items = n.items.map((i) => this.emit(i)).join(", ")
        return this.bound(n.arg, (a) => `(${collateC(a, n.arg.type)} ${n.negated ? "NOT IN" : "IN"} (${items}))`)
      }
      case "like": {
        const arg = this.emit(n.arg)
        const subject = n.caseInsensitive ? `translate(${arg}, '${UPPER}', '${LOWER}')` : arg
        const pattern = this.param(n.caseInsensitive ? lowerAscii(n.pattern) : n.pattern, "string")
        return `(${subject} COLLATE "C" ${n.negated ? "NOT LIKE" : "LIKE"} ${pattern})`
      }
      case "isnull":
        return `(${this.emit(n.arg)} ${n.negated ? "IS NOT NULL" : "IS NULL"})`
      case "isbool":
        return `(${this.emit(n.arg)} IS ${n.negated ? "NOT " : ""}${n.value ? "TRUE" : "FALSE"})`
      case "call": {
        if (isRankFn(n.fn)) return this.rank(n)
        const args = n.args.map((a) => this.emit(a))
        switch (n.fn) {
          case "ABS":
          case "SIGN":
          case "ROUND":
          case "TRUNC":
          case "FLOOR":
          case "CEIL":
            return `${n.fn.toLowerCase()}(${args[0]})`
          case "LENGTH":
            return `(char_length(${args[0]})::float8)`
          case "LOWER":
            return `translate(${args[0]}, '${UPPER}', '${LOWER}')`
          case "UPPER":
            return `translate(${args[0]}, '${LOWER}', '${UPPER}')`
          case "COALESCE":
            return `COALESCE(${args.join(", ")})`
          case "LEAST":
          case "GREATEST":
          case "NULLIF": {
            const [first, ...rest] = args
            return `${n.fn}(${[collateC(first!, n.args[0]!.type), ...rest].join(", ")})`
          }
        }
      }
    }
    throw new Error("unreachable")
  }
}

/** The SQL of an expression (a WHERE predicate when its type is boolean). */
export const toSql = (root: Node, options: SqlOptions): SqlFragment => {
  const e = new Emitter(quoteTable(options.table), {
    params: [],
    first: options.firstParam ?? 1,
    bindings: 0,
    scope: options.scope,
    scopeParam: undefined
  })
  const text = e.emit(root)
  return { text, params: e.params }
}

/** `SELECT ticker FROM <table> WHERE <predicate> ORDER BY ticker` (byte order, as the snapshot's rows). */
export const selectTickersSql = (root: Node, table: string, scope?: ReadonlyArray<string>): SqlFragment => {
  const where = toSql(root, { table, scope })
  return {
    text: `SELECT ${quoteTable(table)}."ticker" FROM ${quoteTable(table)} WHERE ${where.text} ORDER BY ${quoteTable(table)}."ticker" COLLATE "C"`,
    params: where.params
  }
}
