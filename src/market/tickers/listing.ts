/**
 * Rules that turn the raw symbol directories into Vigil's tracked universe:
 * which listings count, clean names and country codes. Sector/industry
 * fallbacks are in `sectors.ts`, the crypto categories in `cryptoIndustry.ts`
 * and the OTC fill in `otc.ts`. Pure functions; used by
 * scripts/build-ticker-seed.ts and documented in docs/tickers.md.
 */
import type { AssetType } from "./types.js"

export type ExclusionReason = "test" | "warrant" | "right" | "unit" | "preferred" | "note"

export type ListingClass =
  | { readonly tracked: true; readonly assetType: Exclude<AssetType, "CRYPTO"> }
  | { readonly tracked: false; readonly reason: ExclusionReason }

export interface DirectoryListing {
  /** canonical symbol (ACT form for other-listed, plain NASDAQ symbol for nasdaq-listed) */
  readonly symbol: string
  readonly securityName: string
  readonly etf: boolean
  readonly testIssue: boolean
  readonly nasdaqListed: boolean
}

const CS: ListingClass = { tracked: true, assetType: "CS" }
const ETF: ListingClass = { tracked: true, assetType: "ETF" }
const out = (reason: ExclusionReason): ListingClass => ({ tracked: false, reason })

const ETN = /\bETNs?\b|exchange[- ]traded notes?/i
const COUPON_OR_MATURITY =
  /\d\s?%|\bdue\s+(?:[a-z]+\s+)?(?:\d{1,2},?\s+)?\d{4}\b|\b(?:notes?|debentures?)\b|\bmortgage bonds\b|\bcertificates?\b|\btrust securities\b/i
const DEPOSITARY_RECEIPT = /\bamerican deposit[ao]ry\b|\bglobal deposit[ao]ry\b|\bADS\b|\bADRs?\b/i
const WARRANT = /\bwarrants?\b/i
const RIGHT = /\brights?\b/i
const UNIT = /\bunits?\b/i
/** units that are the equity itself: LP/LLC common units, trust units of beneficial interest */
const EQUITY_UNIT =
  /beneficial interest|partnership|partner interests?|common units?|class [a-z] units?|\bL\.?P\.?(?=\s|$)|\bLLC\b/i
/** the security is a preferred (or a depositary share of one) */
const PREFERRED_SECURITY =
  /\bpreferred (?:stock|shares?|securities|units?)\b|\bpreference (?:shares?|units?)\b|\bpfd\b|\bdeposit[ao]ry (?:shares?|sh)\b|\bdep shs?\b/i
const PREFERRED_WORD = /\bpreferred\b|\bpreference\b/i
const FUND = /\bfund\b/i
/** a name that ends by saying it is the common equity */
const ENDS_COMMON =
  /(?:common stock|common shares?|ordinary shares?|beneficial interest|common units?[^,]*|common)(?:\s*\([^)]*\))?(?:\s+new)?\s*$/i

/** Which part of the security name describes the security (NASDAQ names are `Company - Security`). */
const descriptor = (l: DirectoryListing): string => {
  const name = l.securityName.replace(/\s+/g, " ").trim()
  if (l.nasdaqListed) {
    const i = name.indexOf(" - ")
    if (i >= 0) return name.slice(i + 3)
  }
  return name
}

/** Symbol conventions for non-common securities (ACT `$`/`.W`/`.U`/`.R`; NASDAQ fifth letter W/R/U). */
const bySymbol = (l: DirectoryListing): ExclusionReason | undefined => {
  const s = l.symbol
  if (s.includes("$")) return "preferred"
  if (/\.WS?$/.test(s)) return "warrant"
  if (/\.U$/.test(s)) return "unit"
  if (/\.RT?$/.test(s)) return "right"
  if (l.nasdaqListed && /^[A-Z]{5}$/.test(s)) {
    const fifth = s[4]
    if (fifth === "W") return "warrant"
    if (fifth === "R") return "right"
    if (fifth === "U") return "unit"
  }
  return undefined
}

/**
 * Classify one directory row. Rules, first match wins:
 * 1. test issue → out (test); 2. ETF flag → ETF; 3. symbol conventions → out;
 * 4. exchange-traded note → ETF (an exchange-traded product, like the ETNs the directories flag as ETF);
 * 5. American/global depositary receipt → CS (ADR, whatever share it represents);
 * 6. preferred security or (non-American) depositary share → out (preferred), unless the name ends
 *    with a common-share phrase or it is a fund's common shares (a fund without a coupon);
 * 7. coupon, maturity, notes, debentures, mortgage bonds, trust certificates → out (note);
 * 8. unit offerings and corporate units (not LP/LLC/trust units) → out (unit);
 * 9. warrants → out; 10. rights → out;
 * 11. the bare word preferred/preference outside a fund or common-share name → out (preferred);
 * 12. everything else → CS.
 */
export const classifyListing = (l: DirectoryListing): ListingClass => {
  if (l.testIssue) return out("test")
  if (l.etf) return ETF
  const sym = bySymbol(l)
  if (sym !== undefined) return out(sym)
  const d = descriptor(l)
  if (ETN.test(d)) return ETF
  if (DEPOSITARY_RECEIPT.test(d)) return CS
  const coupon = COUPON_OR_MATURITY.test(d)
  const commonLike = ENDS_COMMON.test(d) || (FUND.test(d) && !coupon)
  if (PREFERRED_SECURITY.test(d) && !commonLike) return out("preferred")
  if (coupon) return out("note")
  if (UNIT.test(d) && !EQUITY_UNIT.test(d)) return out("unit")
  if (WARRANT.test(d)) return out("warrant")
  if (RIGHT.test(d)) return out("right")
  if (PREFERRED_WORD.test(d) && !commonLike) return out("preferred")
  return CS
}

// ---------------------------------------------------------------------------
// Names

const SECURITY_PHRASE = new RegExp(
  String.raw`(?:\s+-)?\s+(?:(?:class|series)\s+[A-Z0-9-]+\s+)?(?:(?:new|non-voting|subordinate voting|limited voting|voting)\s+)?` +
    String.raw`(?:common stock|common stcok|common shares?|common units?|common\b|ordinary shares?|ordinary participation|` +
    String.raw`american deposit[ao]ry (?:shares?|receipts?)|ADS\b|ADR\b|shares of beneficial interest|` +
    String.raw`units? of beneficial interest|shares of BI\b|SBI\b|(?:limited|operating) partnership units|units\s*$|registry shares|` +
    "trading under the legal name|" +
    String.raw`class\s+[A-Z0-9-]+\s+(?:shares|units)\b)`,
  "i"
)

export const squash = (s: string): string => s.replace(/\s+/g, " ").trim()

/**
 * Company name without the security description: "Agilent Technologies, Inc. Common Stock" →
 * "Agilent Technologies, Inc."; "Artius II Acquisition Inc. - Class A Ordinary Shares" → "Artius II Acquisition Inc.".
 * ETF names are kept whole (the fund name is the name).
 */
export const cleanCompanyName = (securityName: string): string => {
  const s = squash(securityName)
  const m = SECURITY_PHRASE.exec(s)
  let name = m !== null && m.index > 0 ? s.slice(0, m.index) : s
  const dash = name.indexOf(" - ")
  if (dash > 0) name = name.slice(0, dash)
  name = name.replace(/\s*\((?:REIT|new)\)$/i, "").replace(/[\s,;:-]+$/, "")
  return name.length > 0 ? name : s
}

export const cleanFundName = (securityName: string): string => squash(securityName)

// ---------------------------------------------------------------------------
// Countries

/** Full country names used by the nasdaq.com screener → ISO 3166-1 alpha-2 (lowercase). */
export const COUNTRY_CODES: Readonly<Record<string, string>> = {
  Argentina: "ar",
  Australia: "au",
  Austria: "at",
  Bahamas: "bs",
  Belgium: "be",
  Bermuda: "bm",
  Brazil: "br",
  "British Virgin Islands": "vg",
  Cambodia: "kh",
  Canada: "ca",
  "Cayman Islands": "ky",
  Chile: "cl",
  China: "cn",
  Colombia: "co",
  "Costa Rica": "cr",
  Curacao: "cw",
  Cyprus: "cy",
  Denmark: "dk",
  Finland: "fi",
  France: "fr",
  Germany: "de",
  Gibraltar: "gi",
  Greece: "gr",
  Guernsey: "gg",
  "Hong Kong": "hk",
  India: "in",
  Indonesia: "id",
  Ireland: "ie",
  "Isle of Man": "im",
  Israel: "il",
  Italy: "it",
  Japan: "jp",
  Jersey: "je",
  Jordan: "jo",
  Kazakhstan: "kz",
  Luxembourg: "lu",
  Macau: "mo",
  Malaysia: "my",
  "Marshall Islands": "mh",
  Mexico: "mx",
  Monaco: "mc",
  Netherlands: "nl",
  "New Zealand": "nz",
  Norway: "no",
  Panama: "pa",
  Peru: "pe",
  Philippines: "ph",
  "Puerto Rico": "pr",
  Singapore: "sg",
  "South Africa": "za",
  "South Korea": "kr",
  Spain: "es",
  Sweden: "se",
  Switzerland: "ch",
  Taiwan: "tw",
  Turkey: "tr",
  "U.S. Virgin Islands": "vi",
  UK: "gb",
  "United Arab Emirates": "ae",
  "United Kingdom": "gb",
  "United States": "us",
  Uruguay: "uy"
}

/** Country code from a full name; undefined when unknown or blank. */
export const countryCode = (fullName: string | undefined): string | undefined =>
  fullName === undefined ? undefined : COUNTRY_CODES[fullName.trim()]

/** Country from a parenthesised domicile in the security name ("Ordinary Shares (Ireland)"), else undefined. */
export const countryFromSecurityName = (securityName: string): string | undefined => {
  const re = /\(([A-Za-z .]+)\)/g
  for (let m = re.exec(securityName); m !== null; m = re.exec(securityName)) {
    const code = COUNTRY_CODES[m[1]!.trim()]
    if (code !== undefined) return code
  }
  return undefined
}
