/**
 * OTC common stocks from the SEC's company_tickers_exchange.json (docs/tickers.md
 * "OTC fill"): which OTC rows count as a common stock (by symbol, and issuer
 * name for exchange-traded products), the issuer name without EDGAR's
 * suffixes, and the country a legal form names. Pure functions; used by
 * scripts/build-ticker-seed.ts.
 */
import { squash } from "./listing.js"

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
