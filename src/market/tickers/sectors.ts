/**
 * Sector and industry of a listed security when the S&P file gives none:
 * the nasdaq.com screener's sector mapped to GICS names, else keywords in the
 * company name; and an ETF's industry from keywords in the fund name. Pure
 * functions; used by scripts/build-ticker-seed.ts and documented in
 * docs/tickers.md.
 */

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
