/**
 * Ticker symbol conventions.
 *
 * Vigil's canonical form (what `ticker` holds everywhere in the service):
 * - uppercase ASCII letters and digits;
 * - a share class after a dot: `BRK.B`, `BF.A`, `AKO.A` (the NYSE "ACT" convention);
 * - a preferred series after a dollar sign: `ABR$D` (never tracked, but it gives
 *   the other conventions somewhere to land);
 * - a crypto pair suffix `-USD`, used only for a crypto whose bare symbol is taken
 *   by a tracked listed security (`LINK-USD`; see docs/tickers.md).
 *
 * Other conventions met in the data and in user input:
 * | source                         | class    | preferred | unit    | warrant   |
 * |--------------------------------|----------|-----------|---------|-----------|
 * | NYSE ACT (canonical)           | `BRK.B`  | `ABR$D`   | `AAC.U` | `ACHR.W`  |
 * | NASDAQ Trader "NASDAQ Symbol"  | `BRK.B`  | `ABR-D`   | `AAC=`  | `ACHR+`   |
 * | nasdaq.com screener            | `BRK/B`  | `ABR^D`   | `AAC/U` | `ACHR/WS` |
 * | SEC EDGAR, Yahoo               | `BRK-B`  | `ABR-PD`  |         |           |
 *
 * `normalizeSymbol` is for user input and cannot know the convention, so a `-`,
 * `/`, `_` or space before a suffix is read as a share-class separator (the
 * SEC/Yahoo reading, by far the most common in requests). Preferreds are not
 * tracked, so reading `ABR-D` as the class form `ABR.D` only changes which
 * untracked symbol a miss reports. Source-aware converters below are used by
 * the seed builder, where the convention is known.
 */

const PAIR_SUFFIX = /^(.+?)[-/._ ]USD$/
const SEPARATORS = /[-/_ ]+/g

/**
 * Canonical form of a symbol typed in any of the conventions above
 * (case-insensitive, surrounding blanks and a leading cashtag `$` ignored).
 * Pure syntax: it does not check that the symbol is tracked.
 */
export const normalizeSymbol = (input: string): string => {
  let s = input.trim().toUpperCase()
  if (s.startsWith("$")) s = s.slice(1).trimStart()
  const pair = PAIR_SUFFIX.exec(s)
  if (pair !== null) return `${normalizeSymbol(pair[1]!)}-USD`
  return s
    .replace(/\^/g, "$")
    .replace(SEPARATORS, ".")
    .replace(/\.{2,}/g, ".")
}

/** The shape of a canonical symbol: root, optional `.CLASS` or `$SERIES`, optional `-USD`. */
const WELL_FORMED = /^[A-Z0-9]{1,12}(?:[.$][A-Z0-9]{0,4})?(?:-USD)?$/

/** True when `normalizeSymbol(input)` has the shape of a symbol (used to reject garbage with 400). */
export const isWellFormedSymbol = (input: string): boolean => WELL_FORMED.test(normalizeSymbol(input))

/** nasdaq.com screener symbols: `BRK/B` → `BRK.B`, `ABR^D` → `ABR$D`. */
export const fromScreenerSymbol = (s: string): string => s.trim().toUpperCase().replace(/\//g, ".").replace(/\^/g, "$")

/** SEC EDGAR / Yahoo symbols: `BRK-B` → `BRK.B`, `ABR-PD` → `ABR$D`. */
export const fromSecSymbol = (s: string): string => {
  const u = s.trim().toUpperCase()
  const pref = /^([A-Z0-9]+)-P([A-Z])$/.exec(u)
  return pref !== null ? `${pref[1]}$${pref[2]}` : u.replace(/-/g, ".")
}

/** NASDAQ Trader `NASDAQ Symbol` column: `ABR-D` → `ABR$D`, `AAC=` → `AAC.U`, `ACHR+` → `ACHR.W`. */
export const fromNasdaqTraderSymbol = (s: string): string => {
  const u = s.trim().toUpperCase()
  return u
    .replace(/-(?=[A-Z0-9]*$)/, "$")
    .replace(/=$/, ".U")
    .replace(/\+$/, ".W")
    .replace(/\^$/, ".R")
}

/** The crypto pair form used for a crypto whose bare symbol collides with a listed one. */
export const cryptoPairSymbol = (bare: string): string => `${bare.toUpperCase()}-USD`
