/**
 * The grammar of `q`, written with arcsecond combinators over the token array
 * produced by the lexer (arcsecond's input index is the token index; its input
 * is a placeholder byte array with one byte per token).
 *
 * Precedence, loosest first (PostgreSQL's order):
 *   OR < AND < NOT < IS … < comparison < BETWEEN / IN / LIKE / ILIKE < + - < * / % < unary - < primary
 * Comparisons, IS, BETWEEN, IN and LIKE do not chain (`a < b < c` is an error,
 * as in PostgreSQL). Prefix chains (NOT NOT x, - - x) and operator chains are
 * parsed iteratively; only parentheses recurse, and the lexer bounds their
 * depth. Every alternative is decided by the next token, so the parser is
 * linear in the number of tokens: it never backtracks more than one token.
 */
import { Parser, possibly, recursiveParser, sepBy1, sequenceOf, succeedWith, updateError, withData } from "arcsecond"
import { makeSeenBefore } from "../seenBefore.js"
import { type ArithOp, type CompareOp, children, type Expr, nesting } from "./ast.js"
import { entry, type RawEntry } from "./errors.js"
import { lex, type Token } from "./lexer.js"

interface ParseData {
  readonly toks: ReadonlyArray<Token>
  /** furthest token index at which a primitive failed, and what it expected there */
  far: number
  expected: Array<string>
  /** the one error state of this parse (arcsecond only reads `isError` from it; positions are tracked above) */
  failed: unknown
}

type P<T> = Parser<T, string, ParseData>

/**
 * arcsecond's `updateParserState` / `updateResult`, as one fixed-shape object literal: the
 * hot paths below advance the state once per token, and `Object.assign` copies dominate otherwise.
 */
const step = (state: any, result: unknown, index: number): any => ({
  dataView: state.dataView,
  inputType: state.inputType,
  isError: false,
  error: null,
  result,
  index,
  data: state.data
})

const note = (data: ParseData, index: number, label: string) => {
  if (index > data.far) {
    data.far = index
    data.expected.length = 0
    data.expected.push(label)
  } else if (index === data.far && !data.expected.includes(label)) data.expected.push(label)
}

const failure = (state: any, data: ParseData) => {
  if (data.failed === null) data.failed = updateError(state, "failed")
  return data.failed as any
}

/** A primitive matching one token; records what was expected at the furthest failure. */
const tok = <T>(label: string, match: (t: Token) => T | undefined): P<T> =>
  new Parser<T, string, ParseData>((state) => {
    if (state.isError) return state
    const data = state.data as ParseData
    const r = match(data.toks[state.index]!)
    if (r !== undefined) return step(state, r, state.index + 1)
    note(data, state.index, label)
    return failure(state, data)
  }) as P<T>

/** LL(1) dispatch: picks the parser for the current token without consuming it. */
const dispatch = <T>(label: string, pick: (t: Token) => P<T> | undefined): P<T> =>
  new Parser<T, string, ParseData>((state) => {
    if (state.isError) return state
    const data = state.data as ParseData
    const p = pick(data.toks[state.index]!)
    if (p !== undefined) return p.p(state)
    note(data, state.index, label)
    return failure(state, data)
  }) as P<T>

const OPERATOR = "an operator"
const EXPRESSION = "an expression"

const kw = (word: string, label = word) => tok(label, (t) => (t.kind === "kw" && t.text === word ? t : undefined))
const op = (o: string, label = `'${o}'`) => tok(label, (t) => (t.kind === "op" && t.text === o ? t : undefined))
const opIn = (set: ReadonlySet<string>) => tok(OPERATOR, (t) => (t.kind === "op" && set.has(t.text) ? t : undefined))

const expr: P<Expr> = recursiveParser(() => orExpr)

const literal = tok<Expr>(EXPRESSION, (t) => {
  switch (t.kind) {
    case "num":
      return { _tag: "Number", value: t.value as number, pos: t.pos }
    case "str":
      return { _tag: "String", value: t.value as string, pos: t.pos }
    case "kw":
      if (t.text === "TRUE") return { _tag: "Bool", value: true, pos: t.pos }
      if (t.text === "FALSE") return { _tag: "Bool", value: false, pos: t.pos }
      if (t.text === "NULL") return { _tag: "Null", pos: t.pos }
      return undefined
    default:
      return undefined
  }
})
const name = (label: string) => tok(label, (t) => (t.kind === "ident" || t.kind === "qident" ? t : undefined))

const parenthesized: P<Expr> = sequenceOf([op("("), expr, op(")")]).map(([, e]) => e as Expr) as P<Expr>

const argList: P<ReadonlyArray<Expr>> = sepBy1(op(","))(expr) as unknown as P<ReadonlyArray<Expr>>

const qualifiedRest = (ticker: Token): P<Expr> =>
  sequenceOf([op("."), name("a column name")]).map(([, col]): Expr => {
    const c = col as Token
    return {
      _tag: "Qualified",
      ticker: ticker.kind === "ident" ? (ticker.value as string).toUpperCase() : ticker.text,
      name: c.kind === "ident" ? c.text : c.text.toLowerCase(),
      pos: ticker.pos
    }
  }) as P<Expr>

const callArgs = possibly(sequenceOf([op("("), possibly(argList), op(")")]))

/** `name`, `name(args)`, `ticker.name`, `"ticker".name` */
const nameExpr: P<Expr> = name(EXPRESSION).chain((t) => {
  const token = t as Token
  if (token.qualifier) return qualifiedRest(token)
  const ident: Expr = {
    _tag: "Ident",
    name: token.kind === "ident" ? token.text : token.text.toLowerCase(),
    pos: token.pos
  }
  if (token.kind !== "ident") return succeedWith(ident) as P<Expr>
  return callArgs.map((call): Expr => {
    if (call === null) return ident
    const args = (call[1] as ReadonlyArray<Expr> | null) ?? []
    return { _tag: "Call", name: token.text.toUpperCase(), args, pos: token.pos }
  }) as P<Expr>
}) as P<Expr>

const primary: P<Expr> = dispatch(EXPRESSION, (t) => {
  switch (t.kind) {
    case "ident":
    case "qident":
      return nameExpr
    case "op":
      return t.text === "(" ? parenthesized : undefined
    default:
      return literal
  }
})

/**
 * `operand (op operand)*`, folded to the left. When no operator follows, the
 * operand's state is returned as is (no allocation per precedence level).
 */
const chainLeft = (operand: P<Expr>, isOp: (t: Token) => boolean, build: (t: Token, l: Expr, r: Expr) => Expr) =>
  new Parser<Expr, string, ParseData>((state) => {
    if (state.isError) return state
    let s = operand.p(state)
    if (s.isError) return s
    const data = s.data as ParseData
    for (;;) {
      const t = data.toks[s.index]!
      if (!isOp(t)) {
        note(data, s.index, OPERATOR)
        return s
      }
      const r = operand.p(step(s, t, s.index + 1))
      if (r.isError) return r
      s = step(r, build(t, s.result as Expr, r.result as Expr), r.index)
    }
  }) as P<Expr>

/** `op* operand`, folded to the right (iterative: no recursion per prefix operator). */
const prefixed = (isOp: (t: Token) => boolean, operand: P<Expr>, build: (t: Token, arg: Expr) => Expr) =>
  new Parser<Expr, string, ParseData>((state) => {
    if (state.isError) return state
    const data = state.data as ParseData
    let i = state.index
    while (isOp(data.toks[i]!)) i++
    if (i === state.index) return operand.p(state)
    const s = operand.p(step(state, null, i))
    if (s.isError) return s
    let e = s.result as Expr
    for (let j = i - 1; j >= state.index; j--) e = build(data.toks[j]!, e)
    return step(s, e, s.index)
  }) as P<Expr>

/** `operand [suffix]`: the suffix parser is chosen by the token after the operand (LL(1)). */
const suffixed = <S>(operand: P<Expr>, pick: (t: Token) => P<S> | undefined, build: (arg: Expr, suffix: S) => Expr) =>
  new Parser<Expr, string, ParseData>((state) => {
    if (state.isError) return state
    const s = operand.p(state)
    if (s.isError) return s
    const data = s.data as ParseData
    const p = pick(data.toks[s.index]!)
    if (p === undefined) {
      note(data, s.index, OPERATOR)
      return s
    }
    const r = p.p(s)
    if (r.isError) return r
    return step(r, build(s.result as Expr, r.result as S), r.index)
  }) as P<Expr>

const isOpToken = (set: ReadonlySet<string>) => (t: Token) => t.kind === "op" && set.has(t.text)
const isKeyword = (word: string) => (t: Token) => t.kind === "kw" && t.text === word

const unary = prefixed(isOpToken(new Set(["-"])), primary, (t, arg) => ({ _tag: "Neg", arg, pos: t.pos }))

const arith = (t: Token, left: Expr, right: Expr): Expr => ({
  _tag: "Arith",
  op: t.text as ArithOp,
  left,
  right,
  pos: t.pos
})

const mulExpr = chainLeft(unary, isOpToken(new Set(["*", "/", "%"])), arith)
const addExpr = chainLeft(mulExpr, isOpToken(new Set(["+", "-"])), arith)

type Tail = (arg: Expr, not: Token | null) => Expr

const betweenTail: P<Tail> = sequenceOf([kw("BETWEEN"), addExpr, kw("AND"), addExpr]).map(
  ([b, low, , high]): Tail =>
    (arg, not) => ({
      _tag: "Between",
      negated: not !== null,
      arg,
      low: low as Expr,
      high: high as Expr,
      pos: (not ?? (b as Token)).pos
    })
) as P<Tail>

const inTail: P<Tail> = sequenceOf([kw("IN"), op("("), argList, op(")")]).map(
  ([i, , items]): Tail =>
    (arg, not) => ({
      _tag: "In",
      negated: not !== null,
      arg,
      items: items as ReadonlyArray<Expr>,
      pos: (not ?? (i as Token)).pos
    })
) as P<Tail>

const likeTail: P<Tail> = sequenceOf([
  tok("LIKE", (t) => (t.kind === "kw" && (t.text === "LIKE" || t.text === "ILIKE") ? t : undefined)),
  addExpr
]).map(
  ([l, pattern]): Tail =>
    (arg, not) => ({
      _tag: "Like",
      negated: not !== null,
      caseInsensitive: (l as Token).text === "ILIKE",
      arg,
      pattern: pattern as Expr,
      pos: (not ?? (l as Token)).pos
    })
) as P<Tail>

const tailAfterNot: P<Tail> = dispatch("BETWEEN, IN, LIKE or ILIKE", (t) => {
  if (t.kind !== "kw") return undefined
  if (t.text === "BETWEEN") return betweenTail
  if (t.text === "IN") return inTail
  if (t.text === "LIKE" || t.text === "ILIKE") return likeTail
  return undefined
})

const notTail = sequenceOf([kw("NOT"), tailAfterNot]) as P<[Token | null, Tail]>
const plainTail = tailAfterNot.map((tail): [Token | null, Tail] => [null, tail as Tail]) as P<[Token | null, Tail]>

/** `[NOT] BETWEEN …`, `[NOT] IN (…)`, `[NOT] LIKE …`, `[NOT] ILIKE …` */
const predExpr = suffixed(
  addExpr,
  (t) => {
    if (t.kind !== "kw") return undefined
    if (t.text === "NOT") return notTail
    if (t.text === "BETWEEN" || t.text === "IN" || t.text === "LIKE" || t.text === "ILIKE") return plainTail
    return undefined
  },
  (arg, [not, build]) => build(arg, not)
)

const CMP = new Set(["=", "<>", "<", "<=", ">", ">="])
const cmpTail = sequenceOf([opIn(CMP), predExpr]) as P<[Token, Expr]>

const cmpExpr = suffixed(
  predExpr,
  (t) => (t.kind === "op" && CMP.has(t.text) ? cmpTail : undefined),
  (left, [t, right]): Expr => ({ _tag: "Compare", op: t.text as CompareOp, left, right, pos: t.pos })
)

const IS_TARGET = "NULL, TRUE or FALSE"
const isTarget = tok(IS_TARGET, (t) =>
  t.kind === "kw" && (t.text === "NULL" || t.text === "TRUE" || t.text === "FALSE") ? t : undefined
)
const isTail = sequenceOf([kw("IS"), possibly(kw("NOT", IS_TARGET)), isTarget]) as P<[Token, Token | null, Token]>

const isExpr = suffixed(
  cmpExpr,
  (t) => (t.kind === "kw" && t.text === "IS" ? isTail : undefined),
  (arg, [is, not, target]): Expr => {
    const negated = not !== null
    if (target.text === "NULL") return { _tag: "IsNull", negated, arg, pos: is.pos }
    return { _tag: "IsBool", negated, value: target.text === "TRUE", arg, pos: is.pos }
  }
)

const notExpr = prefixed(isKeyword("NOT"), isExpr, (t, arg) => ({ _tag: "Not", arg, pos: t.pos }))
const andExpr = chainLeft(notExpr, isKeyword("AND"), (t, left, right) => ({ _tag: "And", left, right, pos: t.pos }))
const orExpr = chainLeft(andExpr, isKeyword("OR"), (t, left, right) => ({ _tag: "Or", left, right, pos: t.pos }))

const eof = tok("end of input", (t) => (t.kind === "eof" ? t : undefined))
const query: P<Expr> = sequenceOf([expr, eof]).map(([e]) => e as Expr) as P<Expr>

export type ParseResult = { readonly ok: true; readonly expr: Expr } | { readonly ok: false; readonly error: RawEntry }

const describeToken = (t: Token): string => {
  switch (t.kind) {
    case "eof":
      return "end of input"
    case "num":
      return `number ${t.text}`
    case "str":
      return "string literal"
    case "ident":
      return `name '${t.value as string}'`
    case "qident":
      return `quoted name "${t.text}"`
    case "kw":
      return t.text
    case "op":
      return `'${t.text}'`
  }
}

const joinExpected = (labels: ReadonlyArray<string>): string => {
  const list = [...labels].sort((a, b) => (a === "end of input" ? 1 : b === "end of input" ? -1 : a.localeCompare(b)))
  if (list.length <= 1) return list[0] ?? "something else"
  return `${list.slice(0, -1).join(", ")} or ${list[list.length - 1]}`
}

/** Parses a token array (as produced by `lex`). */
export const parseTokens = (toks: ReadonlyArray<Token>): ParseResult => {
  if (toks.length === 1) return { ok: false, error: entry("syntax_error", "empty expression", 0) }
  const data: ParseData = { toks, far: -1, expected: [], failed: null }
  const result = withData<Expr, string, ParseData>(query)(data).run(new Uint8Array(toks.length + 1))
  if (!result.isError) return { ok: true, expr: result.result }
  const at = toks[Math.max(0, Math.min(data.far, toks.length - 1))]!
  const message = `unexpected ${describeToken(at)}, expected ${joinExpected(data.expected)}`
  return { ok: false, error: entry("syntax_error", message, at.pos) }
}

/** Deepest tree accepted (AND / OR chains count as one level). */
export const MAX_NESTING = 128

/**
 * The token stream's shape: every token but its numbers' values. The grammar decides by kind and
 * text only (never by a number's value), so two texts of one shape parse to the same tree but for
 * its numbers and its positions.
 */
export const shapeOf = (toks: ReadonlyArray<Token>): string => {
  let key = ""
  for (const t of toks) key += t.kind === "num" ? "#\0" : `${t.kind} ${t.text}${t.qualifier ? "." : ""}\0`
  return key
}

/** A tree parsed once for its shape, and the token each of its positions is the position of. */
interface Template {
  readonly expr: Expr
  readonly tokenAt: ReadonlyMap<number, number>
}

/** Whether every node of `e` sits at a token (so its tree can be rebuilt for any text of its shape). */
const positionsAreTokens = (e: Expr, tokenAt: ReadonlyMap<number, number>): boolean => {
  const stack = [e]
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (!tokenAt.has(node.pos)) return false
    stack.push(...children(node))
  }
  return true
}

/**
 * The tree of `template` for the tokens of another text of the same shape: each position moved to
 * its token's, each number its token's value. Kept templates passed `positionsAreTokens`, so every
 * position has its token.
 */
const rebuild = (e: Expr, tokenAt: ReadonlyMap<number, number>, toks: ReadonlyArray<Token>): Expr => {
  const at = tokenAt.get(e.pos)!
  const pos = toks[at]!.pos
  // literals of each node's own shape, not spreads: a spread with a field overridden is ~10 times dearer
  switch (e._tag) {
    case "Number":
      return { _tag: "Number", value: toks[at]!.value as number, pos }
    case "String":
      return { _tag: "String", value: e.value, pos }
    case "Bool":
      return { _tag: "Bool", value: e.value, pos }
    case "Null":
      return { _tag: "Null", pos }
    case "Ident":
      return { _tag: "Ident", name: e.name, pos }
    case "Qualified":
      return { _tag: "Qualified", ticker: e.ticker, name: e.name, pos }
    case "Neg":
    case "Not":
      return { _tag: e._tag, arg: rebuild(e.arg, tokenAt, toks), pos }
    case "IsNull":
      return { _tag: "IsNull", negated: e.negated, arg: rebuild(e.arg, tokenAt, toks), pos }
    case "IsBool":
      return { _tag: "IsBool", negated: e.negated, value: e.value, arg: rebuild(e.arg, tokenAt, toks), pos }
    case "Signal":
      return { _tag: "Signal", name: e.name, body: rebuild(e.body, tokenAt, toks), pos }
    case "And":
    case "Or":
      return { _tag: e._tag, left: rebuild(e.left, tokenAt, toks), right: rebuild(e.right, tokenAt, toks), pos }
    case "Compare":
      return {
        _tag: "Compare",
        op: e.op,
        left: rebuild(e.left, tokenAt, toks),
        right: rebuild(e.right, tokenAt, toks),
        pos
      }
    case "Arith":
      return {
        _tag: "Arith",
        op: e.op,
        left: rebuild(e.left, tokenAt, toks),
        right: rebuild(e.right, tokenAt, toks),
        pos
      }
    case "Between": {
      const arg = rebuild(e.arg, tokenAt, toks)
      const low = rebuild(e.low, tokenAt, toks)
      return { _tag: "Between", negated: e.negated, arg, low, high: rebuild(e.high, tokenAt, toks), pos }
    }
    case "Like": {
      const arg = rebuild(e.arg, tokenAt, toks)
      const pattern = rebuild(e.pattern, tokenAt, toks)
      return { _tag: "Like", negated: e.negated, caseInsensitive: e.caseInsensitive, arg, pattern, pos }
    }
    case "In": {
      const arg = rebuild(e.arg, tokenAt, toks)
      return { _tag: "In", negated: e.negated, arg, items: e.items.map((c) => rebuild(c, tokenAt, toks)), pos }
    }
    case "Call":
      return { _tag: "Call", name: e.name, args: e.args.map((c) => rebuild(c, tokenAt, toks)), pos }
  }
}

/** How many shapes' trees are kept (least recently used out). */
const SHAPES = 256

/**
 * Trees of shapes parsed before: texts that differ only in their numbers (a screen's thresholds
 * moved) are parsed once. A shape is kept from its second sighting on (`seenBefore`), so a stream
 * of shapes each seen once churns nothing. Only trees that parsed are kept: errors are reparsed.
 */
const templates = new Map<string, Template>()
const shapeSeen = makeSeenBefore(1024)

const parseShaped = (toks: ReadonlyArray<Token>): ParseResult => {
  const shape = shapeOf(toks)
  const template = templates.get(shape)
  if (template !== undefined) {
    templates.delete(shape)
    templates.set(shape, template)
    return { ok: true, expr: rebuild(template.expr, template.tokenAt, toks) }
  }
  const parsed = parseTokens(toks)
  if (!parsed.ok) return parsed
  if (nesting(parsed.expr) > MAX_NESTING) {
    return { ok: false, error: entry("nesting_too_deep", `expression nested deeper than ${MAX_NESTING} levels`, 0) }
  }
  if (!shapeSeen(shape)) return parsed
  const tokenAt = new Map(toks.map((t, i) => [t.pos, i] as const))
  if (!positionsAreTokens(parsed.expr, tokenAt)) return parsed
  if (templates.size >= SHAPES) templates.delete(templates.keys().next().value as string)
  templates.set(shape, { expr: parsed.expr, tokenAt })
  return parsed
}

/** Lexes and parses `text` (a tree deeper than `MAX_NESTING` refused). */
export const parse = (text: string): ParseResult => {
  const lexed = lex(text)
  if (!lexed.ok) return lexed
  return parseShaped(lexed.tokens)
}
