/**
 * The simulator's input (`SimTickerSpec`) and the static per-ticker model
 * parameters derived from it, as struct-of-arrays for the hot loops.
 *
 * Anything the spec leaves out is drawn deterministically from the seed and
 * the ticker symbol (never from the list order), so adding a ticker to the
 * list changes no other ticker's market.
 */
import { fnv1a, hash2, normal2, unit2 } from "./random.js"

export type SimAssetType = "CS" | "ETF" | "CRYPTO"

/** One simulated ticker. Optional fields may be absent, undefined or null: the simulator then derives a value. */
export interface SimTickerSpec {
  readonly ticker: string
  readonly assetType: SimAssetType
  /** sectors share a return factor; crypto ignores it (crypto has its own factor) */
  readonly sector: string
  /** close on the simulator's `anchorDate` (USD); the history is pinned to it */
  readonly price: number
  /** shares outstanding; circulating supply for crypto */
  readonly sharesOutstanding: number
  /** typical daily volume in shares (coins for crypto) */
  readonly avgVolume: number
  /** trailing-twelve-month EPS at the anchor date (CS) */
  readonly eps?: number | null | undefined
  /** fraction: 0.02 means 2 % */
  readonly dividendYield?: number | null | undefined
  readonly priceToBook?: number | null | undefined
  readonly priceToSales?: number | null | undefined
  /** loading on the equity market factor (crypto: on the crypto factor) */
  readonly beta?: number | null | undefined
  /** override of the unconditional daily log-return standard deviation (e.g. 0.001 for a stablecoin) */
  readonly dailyVol?: number | null | undefined
}

export const KIND_CS = 0
export const KIND_ETF = 1
export const KIND_CRYPTO = 2

/** Daily standard deviations of the factors (before the volatility regime, whose mean is about 1). */
export const MARKET_VOL = 0.009
export const SECTOR_VOL = 0.007
export const CRYPTO_VOL = 0.03
/** Correlation of the crypto factor with the equity market factor. */
export const CRYPTO_MARKET_CORR = 0.25

const STATIC_STREAM = 0x51a7
const given = (x: number | null | undefined): x is number => typeof x === "number" && Number.isFinite(x)
const clamp = (x: number, lo: number, hi: number): number => (x < lo ? lo : Math.min(x, hi))

export class TickerParams {
  readonly n: number
  readonly symbols: ReadonlyArray<string>
  readonly kind: Uint8Array
  /** per-ticker random key (from the seed and the symbol) */
  readonly key: Int32Array
  readonly sector: Int32Array
  readonly sectorNames: ReadonlyArray<string>
  /** per-sector random key (from the seed and the sector name) */
  readonly sectorKey: Int32Array
  readonly anchorPrice: Float64Array
  readonly shares: Float64Array
  readonly avgVolume: Float64Array
  readonly marketCap: Float64Array
  /** loading on the market factor (crypto: on the crypto factor) */
  readonly beta: Float64Array
  /** regression beta on the equity market factor, as reported in fundamentals */
  readonly marketBeta: Float64Array
  readonly sectorLoad: Float64Array
  readonly sigmaIdio: Float64Array
  /** standard deviation of the earnings-day jump */
  readonly sigmaEarn: Float64Array
  /** unconditional daily standard deviation of the log return (after `scale`) */
  readonly sigmaTotal: Float64Array
  /** multiplier of the random part of the return (1 unless `dailyVol` overrides it) */
  readonly scale: Float64Array
  readonly drift: Float64Array
  /** mentions per day at a normal day */
  readonly newsRate: Float64Array
  /** calendar days into each reporting season (CS only; -1 = never reports) */
  readonly earningsOffset: Int32Array
  // fundamentals at the anchor date (NaN = not applicable)
  readonly eps: Float64Array
  readonly forwardGrowth: Float64Array
  readonly bookValue: Float64Array
  readonly sales: Float64Array
  readonly dividend: Float64Array
  readonly shortFraction: Float64Array

  constructor(seedKey: number, specs: ReadonlyArray<SimTickerSpec>) {
    const n = specs.length
    this.n = n
    this.symbols = specs.map((s) => s.ticker)
    const f64 = () => new Float64Array(n)
    this.kind = new Uint8Array(n)
    this.key = new Int32Array(n)
    this.sector = new Int32Array(n)
    this.anchorPrice = f64()
    this.shares = f64()
    this.avgVolume = f64()
    this.marketCap = f64()
    this.beta = f64()
    this.marketBeta = f64()
    this.sectorLoad = f64()
    this.sigmaIdio = f64()
    this.sigmaEarn = f64()
    this.sigmaTotal = f64()
    this.scale = f64()
    this.drift = f64()
    this.newsRate = f64()
    this.earningsOffset = new Int32Array(n)
    this.eps = f64()
    this.forwardGrowth = f64()
    this.bookValue = f64()
    this.sales = f64()
    this.dividend = f64()
    this.shortFraction = f64()

    const sectorIndex = new Map<string, number>()
    const staticKey = hash2(seedKey, STATIC_STREAM)
    for (let i = 0; i < n; i++) {
      const s = specs[i]
      if (!(s.price > 0) || !Number.isFinite(s.price)) throw new RangeError(`${s.ticker}: price must be positive`)
      const kind = s.assetType === "CS" ? KIND_CS : s.assetType === "ETF" ? KIND_ETF : KIND_CRYPTO
      this.kind[i] = kind
      const key = hash2(seedKey, fnv1a(s.ticker))
      this.key[i] = key
      let sec = sectorIndex.get(s.sector)
      if (sec === undefined) {
        sec = sectorIndex.size
        sectorIndex.set(s.sector, sec)
      }
      this.sector[i] = sec
      const tk = hash2(staticKey, key)
      const u = (j: number) => unit2(tk, j)
      const z = (j: number) => normal2(tk, 100 + 2 * j)

      const price = s.price
      const shares = s.sharesOutstanding > 0 ? s.sharesOutstanding : 1e7
      const cap = price * shares
      this.anchorPrice[i] = price
      this.shares[i] = shares
      this.avgVolume[i] = s.avgVolume > 0 ? s.avgVolume : Math.max(1000, shares * 0.005)
      this.marketCap[i] = cap
      const size = cap / 1e10

      let beta: number
      let load: number
      let idio: number
      let total: number
      if (kind === KIND_CS) {
        beta = given(s.beta) ? s.beta : clamp(0.95 * Math.exp(0.3 * z(0)), 0.2, 2.5)
        load = 0.6 + 0.7 * u(1)
        idio = clamp(0.018 * size ** -0.15 * Math.exp(0.2 * z(2)), 0.006, 0.055) * (price < 1 ? 1.15 : 1)
        total = Math.hypot(beta * MARKET_VOL, load * SECTOR_VOL, idio)
        this.sigmaEarn[i] = clamp(0.05 * size ** -0.1, 0.02, 0.15)
        this.drift[i] = 0.0003
      } else if (kind === KIND_ETF) {
        beta = given(s.beta) ? s.beta : clamp(0.9 + 0.25 * z(0), 0, 1.6)
        load = 0.3 * u(1)
        idio = 0.0035 * Math.exp(0.3 * z(2))
        total = Math.hypot(beta * MARKET_VOL, load * SECTOR_VOL, idio)
        this.drift[i] = 0.00025
      } else {
        beta = given(s.beta) ? s.beta : clamp(1.1 + 0.25 * z(0), 0.5, 1.8)
        load = 0
        idio = clamp(0.025 * size ** -0.08 * Math.exp(0.2 * z(2)), 0.01, 0.1)
        total = Math.hypot(beta * CRYPTO_VOL, idio)
        this.drift[i] = 0.0004
      }
      const scale = given(s.dailyVol) && s.dailyVol >= 0 ? s.dailyVol / total : 1
      this.beta[i] = beta
      this.marketBeta[i] = (kind === KIND_CRYPTO ? beta * CRYPTO_MARKET_CORR * (CRYPTO_VOL / MARKET_VOL) : beta) * scale
      this.sectorLoad[i] = load
      this.sigmaIdio[i] = idio
      this.scale[i] = scale
      this.drift[i] *= Math.min(1, scale)
      this.sigmaTotal[i] = total * scale

      const rate = 0.3 + 8 * size ** 0.45 * 0.1 ** 0.45
      this.newsRate[i] = Math.min(60, kind === KIND_ETF ? 0.15 * rate : kind === KIND_CRYPTO ? 0.5 * rate : rate)
      this.earningsOffset[i] = kind === KIND_CS ? Math.floor(u(3) * 32) : -1

      if (kind === KIND_CS) {
        // the larger the company, the likelier it is profitable (55 % at $10M, 95 % at $100B and above)
        const profitable = 0.55 + 0.1 * clamp(Math.log10(cap) - 7, 0, 4)
        this.eps[i] = given(s.eps)
          ? s.eps
          : u(4) < profitable
            ? price / clamp(18 * Math.exp(0.5 * z(4)), 4, 150)
            : -price * (0.02 + 0.15 * u(5))
        this.forwardGrowth[i] = 0.08 + 0.12 * z(5)
        this.bookValue[i] =
          given(s.priceToBook) && s.priceToBook > 0 ? price / s.priceToBook : price / (2.5 * Math.exp(0.6 * z(6)))
        this.sales[i] =
          given(s.priceToSales) && s.priceToSales > 0 ? price / s.priceToSales : price / (2.5 * Math.exp(0.8 * z(7)))
        this.dividend[i] = given(s.dividendYield)
          ? Math.max(0, s.dividendYield) * price
          : u(8) < 0.4
            ? price * 0.025 * Math.exp(0.5 * z(8))
            : 0
        this.shortFraction[i] = clamp(0.03 * Math.exp(0.8 * z(9)), 0.002, 0.4)
      } else {
        this.eps[i] = Number.NaN
        this.forwardGrowth[i] = Number.NaN
        this.bookValue[i] = Number.NaN
        this.sales[i] = Number.NaN
        if (kind === KIND_ETF) {
          this.dividend[i] = given(s.dividendYield)
            ? Math.max(0, s.dividendYield) * price
            : u(8) < 0.6
              ? price * 0.02 * Math.exp(0.5 * z(8))
              : 0
          this.shortFraction[i] = clamp(0.01 * Math.exp(z(9)), 0, 0.3)
        } else {
          this.dividend[i] = Number.NaN
          this.shortFraction[i] = Number.NaN
        }
      }
    }
    this.sectorNames = [...sectorIndex.keys()]
    this.sectorKey = Int32Array.from(this.sectorNames, (name) => hash2(seedKey, fnv1a(`sector:${name}`)))
  }
}
