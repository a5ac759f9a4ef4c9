import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { cryptoIndustry } from "../../src/market/tickers/cryptoIndustry.js"
import {
  assetTypeFilter,
  EXCHANGE_CODES,
  isWellFormedSymbol,
  loadTickers,
  makeTickerDirectory,
  normalizeSymbol,
  readTickerSeed,
  Tickers,
  TickersLive,
  tickerDirectory
} from "../../src/market/tickers/index.js"
import {
  classifyListing,
  cleanCompanyName,
  countryCode,
  countryFromSecurityName,
  type DirectoryListing
} from "../../src/market/tickers/listing.js"
import { classifyOtc, cleanSecName, countryFromLegalForm } from "../../src/market/tickers/otc.js"
import { fundIndustry, screenerSector, sectorFromName } from "../../src/market/tickers/sectors.js"
import { fromNasdaqTraderSymbol, fromScreenerSymbol, fromSecSymbol } from "../../src/market/tickers/symbols.js"

/** Counts documented in docs/tickers.md: CS = 5,938 listed + 1,369 OTC; CS + ETF = the spec's 12,947. */
const EXPECTED = { CS: 7307, ETF: 5640, CRYPTO: 100 }
const EXPECTED_OTC = 1369
const EXPECTED_TOTAL = 13_047
const COLLISIONS = [
  "AERO",
  "APT",
  "ARB",
  "ATOM",
  "BCH",
  "BGB",
  "BTC",
  "CAKE",
  "DASH",
  "ENS",
  "ETH",
  "FET",
  "FLR",
  "GT",
  "H",
  "IP",
  "LEO",
  "LINK",
  "LTC",
  "M",
  "NEAR",
  "PI",
  "PUMP",
  "QNT",
  "SEI",
  "SKY",
  "STX",
  "SUI",
  "TRX",
  "USDE",
  "VET",
  "XRP"
]

describe("normalizeSymbol", () => {
  it("maps every share-class convention to the dot form", () => {
    for (const s of ["BRK.B", "brk.b", "BRK-B", "BRK/B", "brk_b", " brk b ", "$BRK.B"])
      expect(normalizeSymbol(s)).toBe("BRK.B")
  })

  it("maps preferred markers to $ and reads - as a class separator", () => {
    expect(normalizeSymbol("ABR$D")).toBe("ABR$D")
    expect(normalizeSymbol("abr^d")).toBe("ABR$D")
    expect(normalizeSymbol("ABR-D")).toBe("ABR.D")
  })

  it("keeps the crypto pair form whatever the separator", () => {
    for (const s of ["link-usd", "LINK/USD", "link.usd", "LINK_USD"]) expect(normalizeSymbol(s)).toBe("LINK-USD")
    expect(normalizeSymbol("XAUt")).toBe("XAUT")
    expect(normalizeSymbol("USDe")).toBe("USDE")
  })

  it("is idempotent", () => {
    for (const s of ["BRK-B", "abr^d", "btc/usd", "aapl", "2Z", "USD1"])
      expect(normalizeSymbol(normalizeSymbol(s))).toBe(normalizeSymbol(s))
  })

  it("recognises well-formed symbols", () => {
    for (const s of ["AAPL", "brk-b", "LINK-USD", "2Z", "usd1", "ABR^D"]) expect(isWellFormedSymbol(s)).toBe(true)
    for (const s of ["", "AAPL;DROP", "A B C", "<script>", "TOOLONGSYMBOL123"])
      expect(isWellFormedSymbol(s)).toBe(false)
  })

  it("source-aware converters", () => {
    expect(fromScreenerSymbol("BRK/B")).toBe("BRK.B")
    expect(fromScreenerSymbol("ABR^D")).toBe("ABR$D")
    expect(fromSecSymbol("BRK-B")).toBe("BRK.B")
    expect(fromSecSymbol("ABR-PD")).toBe("ABR$D")
    expect(fromNasdaqTraderSymbol("ABR-D")).toBe("ABR$D")
    expect(fromNasdaqTraderSymbol("AAC=")).toBe("AAC.U")
    expect(fromNasdaqTraderSymbol("ACHR+")).toBe("ACHR.W")
    expect(fromNasdaqTraderSymbol("BRK.B")).toBe("BRK.B")
  })
})

describe("which listings count", () => {
  const nasdaq = (symbol: string, securityName: string, etf = false): DirectoryListing => ({
    symbol,
    securityName,
    etf,
    testIssue: false,
    nasdaqListed: true
  })
  const other = (symbol: string, securityName: string, etf = false): DirectoryListing => ({
    symbol,
    securityName,
    etf,
    testIssue: false,
    nasdaqListed: false
  })
  const cls = (l: DirectoryListing) => {
    const c = classifyListing(l)
    return c.tracked ? c.assetType : c.reason
  }

  it("keeps common stock, ADRs, SPAC class A shares, LP and trust units, fund shares", () => {
    expect(cls(nasdaq("AAPL", "Apple Inc. - Common Stock"))).toBe("CS")
    expect(cls(nasdaq("AACB", "Artius II Acquisition Inc. - Class A Ordinary Shares"))).toBe("CS")
    expect(cls(nasdaq("PFBC", "Preferred Bank - Common Stock"))).toBe("CS")
    expect(cls(nasdaq("GOOGL", "Alphabet Inc. - Class A Common Stock"))).toBe("CS")
    expect(cls(other("BRK.B", "Berkshire Hathaway Inc. New Common Stock"))).toBe("CS")
    expect(
      cls(other("ITUB", "Itau Unibanco Banco Holding SA American Depositary Shares (Each repstg 500 Preferred shares)"))
    ).toBe("CS")
    expect(
      cls(
        other(
          "WDH",
          "Waterdrop Inc. American Depositary Shares (each representing the right to receive 10 Class A Ordinary Shares)"
        )
      )
    ).toBe("CS")
    expect(cls(other("AB", "AllianceBernstein Holding L.P.  Units"))).toBe("CS")
    expect(cls(other("PRT", "PermRock Royalty Trust Units of Beneficial Interest"))).toBe("CS")
    expect(cls(other("BNS", "Bank Nova Scotia Halifax Pfd 3 Ordinary Shares"))).toBe("CS")
    expect(cls(other("PFD", "Flaherty & Crumrine Preferred and Income Fund Incorporated"))).toBe("CS")
    expect(cls(other("HPF", "John Hancock Pfd Income Fund II Pfd Income Fund II"))).toBe("CS")
    expect(cls(other("BHK", "Blackrock Core Bond Trust"))).toBe("CS")
    expect(cls(other("CHE", "Chemed Corp"))).toBe("CS")
  })

  it("ETFs by flag, and exchange-traded notes as ETF", () => {
    expect(cls(other("SPY", "State Street SPDR S&P 500 ETF Trust", true))).toBe("ETF")
    expect(cls(other("UTEN", "US Treasury 10 Year Note ETF", true))).toBe("ETF")
    expect(cls(other("VXX", "iPath Series B S&P 500 VIX Short-Term Futures ETN"))).toBe("ETF")
    expect(cls(other("DGP", "DB Gold Double Long ETN due February 15, 2038"))).toBe("ETF")
  })

  it("leaves out test issues, warrants, rights, units, preferreds, notes", () => {
    expect(cls({ ...nasdaq("ZVZZT", "NASDAQ TEST STOCK"), testIssue: true })).toBe("test")
    expect(cls(nasdaq("ACONW", "Aclarion, Inc. - Warrant"))).toBe("warrant")
    expect(cls(nasdaq("PSNYW", "Polestar Automotive Holding UK Limited - Class C-1 ADS (ADW)"))).toBe("warrant")
    expect(cls(other("ACHR.W", "Archer Aviation Inc. Warrants"))).toBe("warrant")
    expect(cls(other("NE.A", "Noble Corporation plc Tranche 2 Warrants"))).toBe("warrant")
    expect(cls(nasdaq("AACBR", "Artius II Acquisition Inc. - Rights"))).toBe("right")
    expect(
      cls(other("GFR.V", "Greenfire Resources Ltd. Rights (expiring September 15, 2026) Rights when issued"))
    ).toBe("right")
    expect(cls(nasdaq("AACBU", "Artius II Acquisition Inc. - Units"))).toBe("unit")
    expect(cls(other("AAC.U", "Ares Acquisition Corp Units, each consisting of one Class A ordinary share"))).toBe(
      "unit"
    )
    expect(cls(other("DUKU", "Duke Energy Corporation Corporate Units"))).toBe("unit")
    expect(cls(other("ABR$D", "Arbor Realty Trust 6.375% Series D Cumulative Redeemable Preferred Stock"))).toBe(
      "preferred"
    )
    expect(cls(nasdaq("CHSCN", "CHS Inc - Preferred Class B Series 2 Reset Rate"))).toBe("preferred")
    expect(cls(nasdaq("STRC", "Strategy Inc - Variable Rate Series A Perpetual Stretch Preferred Stock"))).toBe(
      "preferred"
    )
    expect(cls(nasdaq("CDZIP", "Cadiz, Inc. - Depositary Shares"))).toBe("preferred")
    expect(
      cls(
        nasdaq(
          "AGNCL",
          "AGNC Investment Corp. - Depositary Shares Each Representing a 1/1,000th Interest in a Share of 7.75% Series G"
        )
      )
    ).toBe("preferred")
    expect(
      cls(other("EIIA", "Eagle Point Institutional Income Fund 8.125% Series A Term Preferred Shares Due 2029"))
    ).toBe("preferred")
    expect(cls(nasdaq("OXLCZ", "Oxford Lane Capital Corp. - 5.00% Notes due 2027"))).toBe("note")
    expect(cls(other("AFGC", "American Financial Group, Inc. 5.125% Subordinated Debentures due 2059"))).toBe("note")
    expect(cls(other("EAI", "Entergy Arkansas, LLC First Mortgage Bonds, 4.875% Series Due September 1, 2066"))).toBe(
      "note"
    )
    expect(
      cls(
        other(
          "GJT",
          "Synthetic Fixed-Income Securities, Inc. Floating Rate Structured Repackaged Asset-Backed Trust Securities Certificates, Series 2006-3"
        )
      )
    ).toBe("note")
  })
})

describe("which OTC rows count (SEC ticker file)", () => {
  const cls = (symbol: string, name: string) => {
    const c = classifyOtc(symbol, name)
    return c.tracked ? c.kind : c.reason
  }

  it("keeps 1–4 letter symbols, ADRs (Y), foreign ordinaries (F), classes and new issues", () => {
    expect(cls("FNMA", "FEDERAL NATIONAL MORTGAGE ASSOCIATION FANNIE MAE")).toBe("domestic")
    expect(cls("DTEGY", "DEUTSCHE TELEKOM AG")).toBe("adr")
    expect(cls("RTNTF", "RIO TINTO LTD")).toBe("foreign")
    expect(cls("CRAWA", "CRAWFORD UNITED Corp")).toBe("domestic")
    expect(cls("RKWAD", "Rockwool A/S/ADR")).toBe("domestic")
    expect(cls("LKNC", "Luckin Coffee Inc./ADR")).toBe("adr")
    expect(cls("RHNO", "RHINO BITCOIN INC.")).toBe("domestic") // an operating company, not a trust
  })

  it("leaves out warrants, rights, units, preferreds, convertibles, bankrupt issuers, other fifth letters and ETPs", () => {
    expect(cls("SSTPW", "System1, Inc.")).toBe("warrant")
    expect(cls("IMAQR", "International Media Acquisition Corp.")).toBe("right")
    expect(cls("IMAQU", "International Media Acquisition Corp.")).toBe("unit")
    expect(cls("FMCCT", "FEDERAL HOME LOAN MORTGAGE CORP")).toBe("unit")
    expect(cls("BMYMP", "BRISTOL MYERS SQUIBB CO")).toBe("preferred")
    expect(cls("UEPEO", "UNION ELECTRIC CO")).toBe("preferred")
    expect(cls("FNMAH", "FEDERAL NATIONAL MORTGAGE ASSOCIATION FANNIE MAE")).toBe("note")
    expect(cls("NKLAQ", "Nikola Corp")).toBe("bankrupt")
    expect(cls("FNMAS", "FEDERAL NATIONAL MORTGAGE ASSOCIATION FANNIE MAE")).toBe("other")
    expect(cls("BSQKZ", "Block, Inc.")).toBe("other")
    expect(cls("ETCG", "Grayscale Ethereum Classic Trust (ETC)")).toBe("etp")
    expect(cls("OSOL", "Osprey Solana Trust")).toBe("etp")
    expect(cls("DEFG", "Grayscale Decentralized Finance (DeFi) Fund LLC")).toBe("etp")
  })

  it("cleans SEC names and reads single-country legal forms", () => {
    expect(cleanSecName("Pandora A/S / ADR")).toBe("Pandora A/S")
    expect(cleanSecName("SALEM MEDIA GROUP, INC. /DE/")).toBe("SALEM MEDIA GROUP, INC.")
    expect(cleanSecName("FAIRFAX FINANCIAL HOLDINGS LTD/ CAN")).toBe("FAIRFAX FINANCIAL HOLDINGS LTD")
    expect(cleanSecName("BAE SYSTEMS PLC /FI/")).toBe("BAE SYSTEMS PLC")
    expect(cleanSecName("Adaro Energy PT/ADR/")).toBe("Adaro Energy PT")
    expect(cleanSecName("AMERICA MOVIL SAB DE CV/")).toBe("AMERICA MOVIL SAB DE CV")
    expect(countryFromLegalForm("Pandora A/S / ADR")).toBe("dk")
    expect(countryFromLegalForm("FAIRFAX FINANCIAL HOLDINGS LTD/ CAN")).toBe("ca")
    expect(countryFromLegalForm("PT Chandra Asri Petrochemical Tbk/ADR")).toBe("id")
    expect(countryFromLegalForm("Kongsberg Gruppen ASA/ADR")).toBe("no")
    expect(countryFromLegalForm("Huhtamaki Oyj/ADR")).toBe("fi")
    expect(countryFromLegalForm("Embracer Group AB/ADR")).toBe("se")
    // ambiguous legal forms say nothing
    expect(countryFromLegalForm("DEUTSCHE TELEKOM AG")).toBeUndefined()
    expect(countryFromLegalForm("BAE SYSTEMS PLC /FI/")).toBeUndefined()
    expect(countryFromLegalForm("SALEM MEDIA GROUP, INC. /DE/")).toBeUndefined()
  })
})

describe("names, countries, sectors", () => {
  it("cleans company names", () => {
    expect(cleanCompanyName("Agilent Technologies, Inc. Common Stock")).toBe("Agilent Technologies, Inc.")
    expect(cleanCompanyName("Artius II Acquisition Inc. - Class A Ordinary Shares")).toBe("Artius II Acquisition Inc.")
    expect(cleanCompanyName("Alcoa Corporation Common Stock ")).toBe("Alcoa Corporation")
    expect(cleanCompanyName("Berkshire Hathaway Inc. New Common Stock")).toBe("Berkshire Hathaway Inc.")
    expect(
      cleanCompanyName(
        "Grupo Aeromexico, S.A.B. de C.V. American Depositary Shares (each representing ten (10) Common Shares)"
      )
    ).toBe("Grupo Aeromexico, S.A.B. de C.V.")
    expect(cleanCompanyName("Vermilion Energy Inc. Common (Canada)")).toBe("Vermilion Energy Inc.")
    expect(cleanCompanyName("American Tower Corporation (REIT) Common Stock")).toBe("American Tower Corporation")
    expect(
      cleanCompanyName("Plains All American Pipeline, L.P. Common Units representing Limited Partner Interests")
    ).toBe("Plains All American Pipeline, L.P.")
    expect(cleanCompanyName("AllianceBernstein Holding L.P.  Units")).toBe("AllianceBernstein Holding L.P.")
    expect(cleanCompanyName("Goldman Sachs Group, Inc. (The) Common Stock")).toBe("Goldman Sachs Group, Inc. (The)")
    expect(cleanCompanyName("Chemed Corp")).toBe("Chemed Corp")
  })

  it("country codes", () => {
    expect(countryCode("United States")).toBe("us")
    expect(countryCode("United Kingdom")).toBe("gb")
    expect(countryCode("Cayman Islands")).toBe("ky")
    expect(countryCode("")).toBeUndefined()
    expect(countryFromSecurityName("Seagate Technology Holdings PLC - Ordinary Shares (Ireland)")).toBe("ie")
    expect(countryFromSecurityName("Rezolute, Inc. - Common Stock (NV)")).toBeUndefined()
  })

  it("screener sectors use the GICS names", () => {
    expect(screenerSector("Technology", "Computer Manufacturing")).toBe("Information Technology")
    expect(screenerSector("Finance", "Blank Checks")).toBe("Financials")
    expect(screenerSector("Telecommunications", "Cable & Other Pay Television Services")).toBe("Communication Services")
    expect(screenerSector("Miscellaneous", "Industrial Machinery/Components")).toBe("Industrials")
    expect(screenerSector("", "")).toBeUndefined()
  })

  it("name and fund keyword rules", () => {
    expect(sectorFromName("Gesher Acquisition Corp. II")).toEqual({ sector: "Financials", industry: "Blank Checks" })
    expect(sectorFromName("Acme Therapeutics, Inc.").sector).toBe("Health Care")
    expect(sectorFromName("Zzyzx Holdings")).toEqual({ sector: "Miscellaneous", industry: "Miscellaneous" })
    expect(fundIndustry("iShares 20+ Year Treasury Bond ETF")).toBe("Fixed Income")
    expect(fundIndustry("T. Rowe Price Short Municipal Income ETF")).toBe("Fixed Income")
    expect(fundIndustry("ProShares UltraPro QQQ")).toBe("Leveraged & Inverse")
    expect(fundIndustry("ProShares Short S&P500")).toBe("Leveraged & Inverse")
    expect(fundIndustry("Grayscale Bitcoin Mini Trust (BTC)")).toBe("Digital Assets")
    expect(fundIndustry("Innovator U.S. Equity Buffer ETF - February")).toBe("Defined Outcome")
    expect(fundIndustry("Vanguard Russell 1000 Growth ETF")).toBe("Equity")
    expect(cryptoIndustry("USDe")).toBe("Stablecoin")
    expect(cryptoIndustry("XAUT")).toBe("Tokenized Gold")
    expect(cryptoIndustry("BTC")).toBe("Layer 1")
    expect(cryptoIndustry("UNKNOWN")).toBe("Digital Asset")
  })
})

describe("assetTypeFilter", () => {
  it("equity, crypto and the raw values, case-insensitive", () => {
    expect(assetTypeFilter("equity")).toEqual(["CS", "ETF"])
    expect(assetTypeFilter("EQUITY")).toEqual(["CS", "ETF"])
    expect(assetTypeFilter("Crypto")).toEqual(["CRYPTO"])
    expect(assetTypeFilter("cs")).toEqual(["CS"])
    expect(assetTypeFilter("ETF")).toEqual(["ETF"])
    expect(assetTypeFilter(" etf ")).toEqual(["ETF"])
    expect(assetTypeFilter("stock")).toBeUndefined()
    expect(assetTypeFilter("")).toBeUndefined()
  })
})

describe("the committed seed", () => {
  const all = loadTickers()

  // how fast it loads is `npm run bench:market`'s first line (a timed test fails on a loaded machine)
  it("reads from disk, uncached, as the cached load gives it", () => {
    expect(readTickerSeed()).toEqual(all)
  })

  it("has the documented counts", () => {
    const count = (t: string) => all.filter((m) => m.asset_type === t).length
    expect({ CS: count("CS"), ETF: count("ETF"), CRYPTO: count("CRYPTO") }).toEqual(EXPECTED)
    expect(all.length).toBe(EXPECTED.CS + EXPECTED.ETF + EXPECTED.CRYPTO)
    expect(all.length).toBe(EXPECTED_TOTAL)
    expect(count("CS") + count("ETF")).toBe(12_947)
    expect(all.filter((t) => t.exchange === "OTC")).toHaveLength(EXPECTED_OTC)
  })

  it("is sorted ascending, canonical, and every symbol names exactly one ticker after normalization", () => {
    const tickers = all.map((t) => t.ticker)
    expect(tickers).toEqual([...tickers].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)))
    for (const t of tickers) {
      expect(normalizeSymbol(t)).toBe(t)
      expect(isWellFormedSymbol(t)).toBe(true)
    }
    expect(new Set(tickers.map(normalizeSymbol)).size).toBe(tickers.length)
    expect(new Set(tickers.map((t) => t.toLowerCase())).size).toBe(tickers.length)
    // and every lookup spelling resolves to that one ticker
    const dir = tickerDirectory()
    for (const t of all) {
      expect(dir.lookup(t.ticker)).toBe(t)
      expect(dir.lookup(t.ticker.toLowerCase())).toBe(t)
      if (t.ticker.includes(".")) {
        expect(dir.lookup(t.ticker.replace(".", "-"))).toBe(t) // SEC/Yahoo
        expect(dir.lookup(t.ticker.replace(".", "/"))).toBe(t) // screener
      }
    }
    // no spelling reaches two tickers: a bare symbol is one ticker, and `<SYM>-USD` is only ever a crypto
    expect(new Set(all.map((t) => normalizeSymbol(t.ticker.toLowerCase()))).size).toBe(EXPECTED_TOTAL)
    for (const t of all) {
      if (t.asset_type === "CRYPTO") continue
      const pair = dir.lookup(`${t.ticker}-USD`)
      if (pair !== undefined) expect(pair.asset_type).toBe("CRYPTO")
    }
  })

  it("has valid fields", () => {
    // one assertion over the list of violations (~200,000 `expect` calls took 30 s on a loaded machine)
    const bad: Array<string> = []
    const check = (ok: boolean, t: { ticker: string }, what: string) => {
      if (!ok) bad.push(`${t.ticker}: ${what}`)
    }
    for (const t of all) {
      check(t.name.length > 0 && t.name === t.name.trim(), t, `name ${JSON.stringify(t.name)}`)
      check(EXCHANGE_CODES.includes(t.exchange), t, `exchange ${t.exchange}`)
      check((t.exchange === "CRYPTO") === (t.asset_type === "CRYPTO"), t, "CRYPTO exchange iff CRYPTO asset type")
      if (t.asset_type === "CRYPTO") check(t.country === "", t, `country ${t.country}`)
      else check(/^[a-z]{2}$/.test(t.country), t, `country ${t.country}`)
      check(t.sector.length > 0, t, "sector")
      check(t.industry.length > 0, t, "industry")
      check(t.price > 0, t, `price ${t.price}`)
      check(t.shares_outstanding > 0, t, `shares_outstanding ${t.shares_outstanding}`)
      check(t.market_cap === Math.round(t.price * t.shares_outstanding), t, `market_cap ${t.market_cap}`)
      check(t.avg_volume > 0, t, `avg_volume ${t.avg_volume}`)
      check((t.rank !== null) === (t.asset_type === "CRYPTO"), t, `rank ${t.rank}`)
      if (t.fundamentals !== null) check(t.sp500 === true, t, "fundamentals without sp500")
    }
    expect(bad).toEqual([])
    const etfs = all.filter((t) => t.asset_type === "ETF")
    expect(new Set(etfs.map((t) => t.sector))).toEqual(new Set(["ETF"]))
  })

  it("OTC common stocks: CS on OTC, heuristic sector, derived small-cap seeds, less liquid than listed", () => {
    const otc = all.filter((t) => t.exchange === "OTC")
    const listed = all.filter((t) => t.asset_type === "CS" && t.exchange !== "OTC")
    for (const t of otc) {
      expect(t.asset_type).toBe("CS")
      expect(t.classification_source).toBe("heuristic")
      expect(t.seed_source).toEqual({ price: "derived", shares: "derived", volume: "derived" })
      expect(t.sp500).toBe(false)
      expect(t.fundamentals).toBeNull()
      expect(t.ticker).toMatch(/^[A-Z]{1,5}$/)
      expect(t.name).not.toMatch(/\/\s*(?:ADR|FI|DE)\b/)
    }
    const median = (xs: Array<number>) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
    const cap = (ts: ReadonlyArray<{ market_cap: number }>) => median(ts.map((t) => t.market_cap))
    const dollarVolume = (ts: ReadonlyArray<{ price: number; avg_volume: number }>) =>
      median(ts.map((t) => t.price * t.avg_volume))
    expect(cap(otc)).toBeLessThan(1e8)
    expect(cap(otc)).toBeLessThan(cap(listed) / 5)
    expect(dollarVolume(otc)).toBeLessThan(dollarVolume(listed) / 50)
  })

  it("OTC spot checks: taken in SEC order, issuers and crypto trusts already covered are passed over", () => {
    const dir = tickerDirectory()
    expect(dir.lookup("FNMA")).toMatchObject({ exchange: "OTC", asset_type: "CS", country: "us" })
    expect(dir.lookup("DTEGY")).toMatchObject({ exchange: "OTC", name: "DEUTSCHE TELEKOM AG" })
    expect(dir.lookup("PNDRY")).toMatchObject({ exchange: "OTC", name: "Pandora A/S", country: "dk" })
    expect(dir.lookup("FRFHF")).toMatchObject({ exchange: "OTC", country: "ca" })
    expect(dir.lookup("HSTC")).toMatchObject({ exchange: "OTC" }) // the last one taken
    expect(dir.lookup("TSMWF")).toBeUndefined() // TSMC's ordinaries: the issuer is listed (TSM)
    expect(dir.lookup("DTEGF")).toBeUndefined() // Deutsche Telekom's ordinaries: the issuer is taken (DTEGY)
    expect(dir.lookup("FNMAS")).toBeUndefined() // a Fannie Mae preferred
    expect(dir.lookup("ETCG")).toBeUndefined() // Grayscale Ethereum Classic Trust, an ETP
    expect(dir.lookup("NKLAQ")).toBeUndefined() // bankrupt
  })

  it("the top 100 crypto: ranks 1..100, stablecoins kept, case folded", () => {
    const crypto = all.filter((t) => t.asset_type === "CRYPTO")
    expect(crypto.map((t) => t.rank).sort((a, b) => a! - b!)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1))
    const byRank = new Map(crypto.map((t) => [t.rank, t]))
    expect(byRank.get(1)!.ticker).toBe("BTC-USD")
    expect(byRank.get(3)!.ticker).toBe("USDT")
    expect(byRank.get(15)!.ticker).toBe("USDE-USD")
    expect(byRank.get(52)!.ticker).toBe("XAUT")
    for (const s of ["USDT", "USDC", "DAI", "USD1", "PYUSD", "FDUSD", "RLUSD"])
      expect(tickerDirectory().lookup(s)!.industry).toBe("Stablecoin")
    for (const t of crypto) {
      expect(t.sector).toBe("Crypto")
      expect(t.seed_source).toEqual({ price: "cmc", shares: "cmc", volume: "cmc" })
    }
  })

  it("collisions: the listed security keeps the bare symbol, the crypto becomes <SYM>-USD", () => {
    const dir = tickerDirectory()
    const paired = all
      .filter((t) => t.asset_type === "CRYPTO" && t.ticker.endsWith("-USD"))
      .map((t) => t.ticker.slice(0, -4))
    expect(paired.sort()).toEqual(COLLISIONS)
    for (const s of COLLISIONS) {
      expect(dir.lookup(s)!.asset_type).not.toBe("CRYPTO")
      expect(dir.lookup(`${s}-USD`)!.asset_type).toBe("CRYPTO")
    }
    expect(dir.lookup("LINK")!.name).toBe("Interlink Electronics, Inc.")
    expect(dir.lookup("link-usd")!.name).toBe("Chainlink")
    expect(dir.lookup("BTC")!.asset_type).toBe("ETF")
    expect(dir.lookup("btc/usd")!.name).toBe("Bitcoin")
    // a crypto without a collision answers to both spellings
    expect(dir.lookup("SOL")!.name).toBe("Solana")
    expect(dir.lookup("sol-usd")!.ticker).toBe("SOL")
    // but the pair form never reaches a listed security
    expect(dir.lookup("AAPL-USD")).toBeUndefined()
  })

  it("lookups in any convention", () => {
    const dir = tickerDirectory()
    for (const s of ["BRK.B", "brk-b", "BRK/B", "$brk.b"]) expect(dir.lookup(s)!.ticker).toBe("BRK.B")
    expect(dir.lookup("xaut")!.ticker).toBe("XAUT")
    expect(dir.lookup("ABR^D")).toBeUndefined() // preferreds are not tracked
    expect(dir.lookup("NOPE")).toBeUndefined()
    expect(dir.indexOf("AAPL")).toBe(all.findIndex((t) => t.ticker === "AAPL"))
    expect(dir.indexOf("NOPE")).toBe(-1)
  })

  it("spot checks against the sources", () => {
    const dir = tickerDirectory()
    const aapl = dir.lookup("AAPL")!
    expect(aapl).toMatchObject({
      name: "Apple Inc.",
      asset_type: "CS",
      exchange: "NASDAQ",
      country: "us",
      sector: "Information Technology",
      industry: "Technology Hardware, Storage & Peripherals",
      classification_source: "gics",
      sp500: true,
      seed_source: { price: "screener", shares: "screener", volume: "screener" }
    })
    expect(aapl.fundamentals!.eps).toBe(8.72)
    expect(dir.lookup("SPY")).toMatchObject({ asset_type: "ETF", exchange: "NYSEARCA", sector: "ETF", country: "us" })
    expect(dir.lookup("BRK.A")).toMatchObject({ sector: "Financials", sp500: false, exchange: "NYSE" })
    expect(dir.lookup("STX")).toMatchObject({ exchange: "NASDAQ", country: "ie" })
    expect(all.filter((t) => t.sp500)).toHaveLength(501)
    const exchanges = new Set(all.map((t) => t.exchange))
    expect(exchanges).toEqual(new Set(EXCHANGE_CODES))
  })

  it("makeTickerDirectory rejects duplicates", () => {
    const t = all[0]!
    expect(() => makeTickerDirectory([t, t])).toThrow(/duplicate/)
  })

  it("is available as an Effect service", async () => {
    const size = await Effect.runPromise(
      Effect.provide(
        Effect.map(Tickers, (d) => d.size),
        TickersLive
      )
    )
    expect(size).toBe(all.length)
  })
})
