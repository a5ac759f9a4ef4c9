/**
 * Rules that turn the raw symbol directories into Vigil's tracked universe:
 * which listings count, clean names, country codes, sector/industry fallbacks
 * and the crypto category table. Pure functions; used by
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

const squash = (s: string): string => s.replace(/\s+/g, " ").trim()

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

// ---------------------------------------------------------------------------
// Sectors

/** nasdaq.com screener sector → GICS sector name (same meaning, GICS spelling). */
const SCREENER_SECTOR: Readonly<Record<string, string>> = {
  "Basic Materials": "Materials",
  "Consumer Discretionary": "Consumer Discretionary",
  "Consumer Staples": "Consumer Staples",
  Energy: "Energy",
  Finance: "Financials",
  "Health Care": "Health Care",
  Industrials: "Industrials",
  "Real Estate": "Real Estate",
  Technology: "Information Technology",
  Telecommunications: "Communication Services",
  Utilities: "Utilities"
}

/** The screener's "Miscellaneous" sector holds industrial industries; the rest stay Miscellaneous. */
const MISC_INDUSTRY_SECTOR: Readonly<Record<string, string>> = {
  "Diversified Commercial Services": "Industrials",
  "Industrial Machinery/Components": "Industrials",
  "Multi-Sector Companies": "Industrials",
  "Office Equipment/Supplies/Services": "Industrials"
}

/** Map a screener (sector, industry) pair; undefined when the screener has no sector. */
export const screenerSector = (sector: string, industry: string): string | undefined => {
  const s = sector.trim()
  if (s === "") return undefined
  if (s === "Miscellaneous") return MISC_INDUSTRY_SECTOR[industry.trim()] ?? "Miscellaneous"
  return SCREENER_SECTOR[s] ?? "Miscellaneous"
}

interface KeywordRule {
  readonly re: RegExp
  readonly sector: string
  readonly industry: string
}

/** Company-name keywords for listings neither the S&P file nor the screener classifies. First match wins. */
const NAME_RULES: ReadonlyArray<KeywordRule> = [
  { re: /\bacquisition\b|\bmerger\b|\bSPAC\b/i, sector: "Financials", industry: "Blank Checks" },
  { re: /\broyalty\b/i, sector: "Energy", industry: "Oil & Gas Royalty Trusts" },
  {
    re: /\bfund\b|\bmunicipal\b|\bincome (?:trust|opportunit)|\bbond trust\b|\bterm trust\b|\bopportunities trust\b|\bcredit (?:company|income)\b/i,
    sector: "Financials",
    industry: "Closed-End Funds"
  },
  {
    re: /\bbank(?:s|ing|shares)?\b|\bbancorp(?:oration)?\b|\bbancshares\b|\bbanc\b|\bsavings\b/i,
    sector: "Financials",
    industry: "Banks"
  },
  {
    re: /\bcapital\b|\bfinanc|\binvestment\b|\binsurance\b|\bassurance\b|\bsecurities\b|\bexchange group\b|\bholdings? corp/i,
    sector: "Financials",
    industry: "Financial Services"
  },
  {
    re: /\bREIT\b|\brealty\b|\bproperties\b|\breal estate\b|\bapartment|\bresidential\b/i,
    sector: "Real Estate",
    industry: "REITs"
  },
  {
    re: /therapeut|pharma|\bbio|medical|health|\bdiagnos|genomic|cannab|\bhospital|\bdental\b|\blife sciences\b/i,
    sector: "Health Care",
    industry: "Biotechnology & Pharmaceuticals"
  },
  { re: /\bpower\b|\butilit|\belectric\b|\bwater\b/i, sector: "Utilities", industry: "Utilities" },
  {
    re: /\benerg(?:y|i|ia)\b|\boil\b|\bgas\b|\bpetro|\bmidstream\b|\bpipeline|\buranium\b|\bhelium\b|\bhydrogen\b|\bsolar\b/i,
    sector: "Energy",
    industry: "Oil & Gas"
  },
  {
    re: /\bmining\b|\bmines\b|\bminerals?\b|\bgold\b|\bsilver\b|\bmetals?\b|\bresources?\b|\bchemical|\bcopper\b|\blithium\b|\bexploration\b|\bdiamonds?\b|\bvanadium\b|\btungsten\b|\bnickel\b|\brare earths?\b/i,
    sector: "Materials",
    industry: "Metals & Mining"
  },
  {
    re: /technolog|software|semiconductor|\bsystems\b|\bdigital\b|\bdata\b|\bcloud\b|\bAI\b|\bcyber|\belectronics?\b|\bphotonics\b|\brobotics\b/i,
    sector: "Information Technology",
    industry: "Technology"
  },
  {
    re: /\bmedia\b|\btelecom|\btelekom|\btelephone\b|\btelefonica\b|\bwireless\b|\bnetworks?\b|\bcommunications?\b|\bentertainment\b/i,
    sector: "Communication Services",
    industry: "Media & Telecom"
  },
  { re: /\bfoods?\b|\bbeverage|\bbrands\b|\bfarms?\b/i, sector: "Consumer Staples", industry: "Food & Beverage" },
  {
    re: /\bshipping\b|\bshipbuilding\b|\btankers?\b|\bmarine\b|\blogistics\b|\baviation\b|\bindustr|\bairlines?\b|\bairport\b|\brailway\b|\bdefen[cs]e\b|\bengineering\b|\bconstruction\b/i,
    sector: "Industrials",
    industry: "Industrials"
  },
  {
    re: /\bretail|\bstores?\b|\brestaurants?\b|\bhotels?\b|\bauto|\bmotors?\b|\bgaming\b/i,
    sector: "Consumer Discretionary",
    industry: "Consumer Services"
  }
]

export const MISCELLANEOUS = { sector: "Miscellaneous", industry: "Miscellaneous" } as const

/** Keyword heuristic on a company name; Miscellaneous when nothing matches. */
export const sectorFromName = (name: string): { readonly sector: string; readonly industry: string } => {
  for (const rule of NAME_RULES) if (rule.re.test(name)) return { sector: rule.sector, industry: rule.industry }
  return MISCELLANEOUS
}

/** ETF industry from keywords in the fund name (sector is always "ETF"). First match wins. */
const FUND_RULES: ReadonlyArray<readonly [RegExp, string]> = [
  [/bitcoin|ether(?:eum)?\b|\bcrypto|\bsolana\b|\bXRP\b|\bdigital asset|blockchain|\bdoge/i, "Digital Assets"],
  [
    /\b-?\d(?:\.\d+)?x\b|leveraged|\binverse\b|\bultra(?:pro|short)?\b|\bbull\b|\bbear\b|\bshort (?!term|duration|maturity|municipal|muni\b|treasury|bond|dated|high yield|income)/i,
    "Leveraged & Inverse"
  ],
  [/\bbuffer\b|\bfloor\d*\b|defined outcome|\baccelerat|\bbarrier\b|\bhedged equity\b|\bprotect/i, "Defined Outcome"],
  [
    /option income|covered call|premium income|\bbuywrite\b|\bweeklypay\b|yieldmax|income strategy|\boptions?\b/i,
    "Option Income"
  ],
  [
    /treasur|\bbonds?\b|fixed income|investment grade|high yield|interest rate|money market|\bcash\b|municipal|\bmuni\b|\bcredit\b|\bCLO\b|mortgage|duration|aggregate|\bTIPS\b|floating rate|\bloans?\b|\bT-?bill|\bincome\b|\byield\b|\bnote\b/i,
    "Fixed Income"
  ],
  [/\bgold\b|\bsilver\b|commodit|\boil\b|natural gas|\bmetals?\b|\bcopper\b|\buranium\b|\bplatinum\b/i, "Commodities"],
  [/real estate|\bREIT/i, "Real Estate"],
  [/currenc|\bdollar\b|\byen\b|\beuro\b|\bfranc\b/i, "Currency"],
  [
    /international|emerging|\beurope|\bjapan|\bchina\b|\bglobal\b|\bworld\b|ex-?U\.?S|\bEAFE\b|developed|\bindia\b|\bbrazil\b|\bkorea|\btaiwan\b|\bgerman|\bcanada\b|\bmexic|\bAsia/i,
    "International Equity"
  ],
  [/\bdividend\b/i, "Dividend Equity"]
]

export const fundIndustry = (fundName: string): string => {
  for (const [re, industry] of FUND_RULES) if (re.test(fundName)) return industry
  return "Equity"
}

// ---------------------------------------------------------------------------
// Crypto categories (top-100 names as of 2025-11-03); everything else is "Digital Asset".

const CRYPTO_GROUPS: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  ["Stablecoin", ["USDT", "USDC", "USDE", "DAI", "USD1", "PYUSD", "FDUSD", "RLUSD", "TUSD", "USDS"]],
  ["Tokenized Gold", ["XAUT", "PAXG"]],
  [
    "Layer 1",
    [
      "BTC",
      "ETH",
      "SOL",
      "ADA",
      "TRX",
      "AVAX",
      "SUI",
      "HBAR",
      "TON",
      "DOT",
      "NEAR",
      "APT",
      "ICP",
      "ALGO",
      "ATOM",
      "KAS",
      "VET",
      "SEI",
      "FLR",
      "XDC",
      "TIA",
      "INJ",
      "IOTA",
      "XTZ",
      "ETC",
      "KAIA",
      "EGLD",
      "M",
      "IP",
      "PI"
    ]
  ],
  ["Payments", ["XRP", "XLM", "LTC", "BCH", "DASH"]],
  ["Privacy", ["XMR", "ZEC"]],
  ["Layer 2", ["MNT", "ARB", "OP", "POL", "IMX", "STX"]],
  ["Exchange Token", ["BNB", "LEO", "OKB", "BGB", "KCS", "GT", "CRO", "TWT"]],
  [
    "DeFi",
    [
      "HYPE",
      "UNI",
      "AAVE",
      "ENA",
      "ONDO",
      "JUP",
      "SKY",
      "CAKE",
      "CRV",
      "LDO",
      "MORPHO",
      "AERO",
      "DEXE",
      "ETHFI",
      "ASTER",
      "WLFI",
      "NEXO"
    ]
  ],
  ["Oracle", ["LINK", "PYTH"]],
  ["Meme", ["DOGE", "SHIB", "PEPE", "TRUMP", "BONK", "PENGU", "FLOKI", "SPX", "PUMP"]],
  ["AI", ["TAO", "FET", "VIRTUAL", "RENDER", "WLD"]],
  ["Infrastructure", ["FIL", "GRT", "QNT", "ENS", "2Z", "H"]],
  ["Gaming & Metaverse", ["SAND", "MANA", "AXS"]]
]

const CRYPTO_INDUSTRY = new Map<string, string>(
  CRYPTO_GROUPS.flatMap(([industry, symbols]) => symbols.map((s) => [s, industry] as const))
)

/** Crypto industry by bare uppercase symbol. */
export const cryptoIndustry = (bareSymbol: string): string =>
  CRYPTO_INDUSTRY.get(bareSymbol.toUpperCase()) ?? "Digital Asset"

// ---------------------------------------------------------------------------
// OTC common stocks (SEC company_tickers_exchange.json; see docs/tickers.md "OTC fill")

/** Why an OTC row of the SEC file is not taken as a common stock. */
export type OtcExclusion = "warrant" | "right" | "unit" | "preferred" | "note" | "bankrupt" | "other" | "etp"

/** `domestic`: 1–4 letters or a class/new-issue fifth letter; `adr`: fifth letter Y; `foreign`: fifth letter F. */
export type OtcKind = "domestic" | "adr" | "foreign"

export type OtcClass =
  | { readonly tracked: true; readonly kind: OtcKind }
  | { readonly tracked: false; readonly reason: OtcExclusion }

/**
 * FINRA's fifth-letter identifiers of a 5-letter OTC symbol. Kept: A/B (class), J/K (voting/non-voting),
 * D (new issue after a reverse split), F (foreign ordinary share), Y (ADR). Everything else is not a
 * common stock (or, for Q, the common stock of an issuer in bankruptcy).
 */
const OTC_FIFTH_LETTER: Readonly<Record<string, OtcClass>> = {
  A: { tracked: true, kind: "domestic" },
  B: { tracked: true, kind: "domestic" },
  D: { tracked: true, kind: "domestic" },
  J: { tracked: true, kind: "domestic" },
  K: { tracked: true, kind: "domestic" },
  F: { tracked: true, kind: "foreign" },
  Y: { tracked: true, kind: "adr" },
  W: { tracked: false, reason: "warrant" },
  R: { tracked: false, reason: "right" },
  U: { tracked: false, reason: "unit" },
  T: { tracked: false, reason: "unit" },
  M: { tracked: false, reason: "preferred" },
  N: { tracked: false, reason: "preferred" },
  O: { tracked: false, reason: "preferred" },
  P: { tracked: false, reason: "preferred" },
  G: { tracked: false, reason: "note" },
  H: { tracked: false, reason: "note" },
  I: { tracked: false, reason: "note" },
  Q: { tracked: false, reason: "bankrupt" }
}

/** Crypto and other grantor trusts quoted OTC (Grayscale, Osprey): exchange-traded products, not common stock. */
const OTC_ETP =
  /\b(?:grayscale|osprey)\b|\b(?:trust|fund)\b.*(?:bitcoin|ethereum|\bether\b|crypto|digital asset|\btoken|\bcoin\b|\bdefi\b)|(?:bitcoin|ethereum|\bether\b|crypto|digital asset|\btoken|\bcoin\b|\bdefi\b).*\b(?:trust|fund)\b/i

/**
 * Classify one OTC row of the SEC file by its symbol (and, for exchange-traded products, its issuer name).
 * The SEC names the issuer, not the security, so the security type comes from the symbol: 1–4 letters is the
 * common stock; a fifth letter follows `OTC_FIFTH_LETTER`; anything else (digits, separators, 6+ letters) is out.
 */
export const classifyOtc = (symbol: string, issuerName: string): OtcClass => {
  if (OTC_ETP.test(issuerName)) return { tracked: false, reason: "etp" }
  if (/^[A-Z]{1,4}$/.test(symbol)) return { tracked: true, kind: /\/\s*ADR\b/i.test(issuerName) ? "adr" : "domestic" }
  if (/^[A-Z]{5}$/.test(symbol)) return OTC_FIFTH_LETTER[symbol[4]!] ?? { tracked: false, reason: "other" }
  return { tracked: false, reason: "other" }
}

/** EDGAR disambiguation suffixes: `/ADR`, ` /FI/`, `/ CAN`, ` /DE/`, a trailing `/`. */
const EDGAR_SUFFIX = /\s*\/\s*(?:ADR|FI|CAN|[A-Z]{2})?\s*\/?\s*$/

/**
 * Issuer name of an SEC row without EDGAR's suffixes: "Pandora A/S / ADR" → "Pandora A/S",
 * "SALEM MEDIA GROUP, INC. /DE/" → "SALEM MEDIA GROUP, INC.". The SEC's capitalization is kept.
 */
export const cleanSecName = (name: string): string => {
  let s = squash(name)
  for (let prev = ""; prev !== s; ) {
    prev = s
    s = s.replace(EDGAR_SUFFIX, "").trim()
  }
  return s.length > 0 ? s : squash(name)
}

/** Legal forms (and EDGAR province suffixes) that name one country. Ambiguous ones (AG, SE, SA, plc, N.V., Ltd) are not used. */
const LEGAL_FORM_COUNTRY: ReadonlyArray<readonly [RegExp, string]> = [
  [/\/\s*(?:CAN|ON|BC|AB|QC)\b/, "ca"],
  [/\bTbk\b|^PT\b|\bPT\s*\//, "id"],
  [/\bASA\b/, "no"],
  [/\bA\/S\b/, "dk"],
  [/\bOyj\b/i, "fi"],
  [/\bS\.p\.A\.|\bSpA\b/, "it"],
  [/\bKGaA\b/, "de"],
  [/\bAB(?: \(publ\))?\s*(?:\/|$)/, "se"],
  [/\bS\.A\.B\. de C\.V\.|\bSAB DE CV\b/i, "mx"],
  [/\bBhd\b|\bBerhad\b/i, "my"],
  [/\bK\.K\.|\bKabushiki Kaisha\b/i, "jp"],
  [/\bPCL\b|\bPublic Co(?:mpany|\.)? Limited\b/i, "th"],
  [/\bTAS\s*(?:\/|$)/, "tr"],
  [/\bhf\.?\s*(?:\/|$)/i, "is"]
]

/** Country from a single-country legal form in an SEC issuer name, else undefined. */
export const countryFromLegalForm = (secName: string): string | undefined => {
  for (const [re, code] of LEGAL_FORM_COUNTRY) if (re.test(secName)) return code
  return undefined
}
