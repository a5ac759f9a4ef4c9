/**
 * The crypto category table: the industry of each of the top-100 cryptos
 * (names as of 2025-11-03); everything else is "Digital Asset". Used by
 * scripts/build-ticker-seed.ts and documented in docs/tickers.md.
 */

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
