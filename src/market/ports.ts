/**
 * What the market needs of the store, defined here and implemented there
 * (`src/store/marketStore.ts`), so the market imports no store module: its
 * imported bars (`MarketBars`), a live feed's fundamentals and news
 * (`MarketFeedInputs`), the feed switch every process reads
 * (`MarketFeedSwitch`), and — in a split deployment — the refresh ticks it
 * follows (`FollowTicks`, `followTicks.ts`).
 */
import type { SqlError } from "@effect/sql/SqlError"
import { Context, type Effect } from "effect"
import type { FeedInputs, FeedMention, FundamentalsEntry } from "./sources/feedSource.js"

/** A daily bar as the store keeps it (what the CSV parsers give). */
export interface StoredBar {
  readonly ticker: string
  readonly date: string
  readonly open: number
  readonly high: number
  readonly low: number
  readonly close: number
  readonly volume: number
}

/** A split: `ratio` new shares per old share from `date` on (4 for 4-for-1, 0.1 for 1-for-10). */
export interface Split {
  readonly ticker: string
  readonly date: string
  readonly ratio: number
}

/** The evaluation cadences a refresh tick can be due for (`src/alerts/cadence.ts`). */
export type Cadence = "realtime" | "hourly" | "exchange_open"

/** A refresh tick: the market time every process refreshes to, with the imports it includes. */
export interface RefreshTick {
  readonly seq: number
  /** the market time every process refreshes to (epoch ms) */
  readonly asOf: number
  /** the cadences evaluated on this tick */
  readonly due: ReadonlyArray<Cadence>
  /** the last import (`market_imports.seq`) the tick's snapshot includes */
  readonly imports: number
  /** the last refresh request (`requestRefresh`) issued before the tick */
  readonly request: number
}

export type BarsByTicker = ReadonlyMap<string, ReadonlyArray<StoredBar>>

/** The imported bars, read back split-adjusted. */
export interface BarStore {
  /** every imported bar, once the store can be read (none at all on a database this start creates) */
  readonly initial: Effect.Effect<BarsByTicker, SqlError>
  /** the bars of `tickers` */
  readonly load: (tickers: ReadonlyArray<string>) => Effect.Effect<BarsByTicker, SqlError>
  /** each ticker's bars replace its stored bars over their date range (one transaction), logged for followers */
  readonly replace: (byTicker: BarsByTicker) => Effect.Effect<void, SqlError>
}

export class MarketBars extends Context.Tag("vigil/MarketBars")<MarketBars, BarStore>() {}

/** What a bulk import writes (`sources/bulkImport.ts`): bars file by file, and splits, unlogged. */
export interface BulkBarStore {
  readonly replace: (
    byTicker: BarsByTicker,
    options: { readonly adjusted?: boolean; readonly log?: boolean }
  ) => Effect.Effect<unknown, SqlError>
  readonly replaceSplits: (
    splits: ReadonlyArray<Split>,
    options: { readonly log?: boolean }
  ) => Effect.Effect<unknown, SqlError>
}

/** The feed switch (`POST /admin/feed/pause|resume`), shared by every process. */
export interface FeedSwitch {
  readonly paused: Effect.Effect<boolean, SqlError>
  readonly set: (paused: boolean) => Effect.Effect<void, SqlError>
}

export class MarketFeedSwitch extends Context.Tag("vigil/MarketFeedSwitch")<MarketFeedSwitch, FeedSwitch>() {}

/** The tickers of logged imports, by what was imported. */
export interface ImportedTickers {
  readonly bars: ReadonlySet<string>
  readonly inputs: ReadonlySet<string>
}

/** A live feed's fundamentals and news (`sources/feedSource.ts`), kept so a restart and every process read them. */
export interface FeedInputStore {
  /** everything the feed told, once the store can be read (nothing on a database this start creates) */
  readonly initial: Effect.Effect<FeedInputs, SqlError>
  /** what the feed told of `tickers` */
  readonly load: (tickers: ReadonlyArray<string>) => Effect.Effect<FeedInputs, SqlError>
  /** stores fundamentals (merged field by field into a ticker's entry of the same day), logged for followers */
  readonly addFundamentals: (entries: ReadonlyArray<FundamentalsEntry>) => Effect.Effect<void, SqlError>
  /** stores mentions, logged for followers; answers them with their sequence numbers */
  readonly addMentions: (
    mentions: ReadonlyArray<Omit<FeedMention, "seq">>
  ) => Effect.Effect<ReadonlyArray<FeedMention>, SqlError>
}

export class MarketFeedInputs extends Context.Tag("vigil/MarketFeedInputs")<MarketFeedInputs, FeedInputStore>() {}

/** The refresh ticks a following market reads (a split deployment). */
export interface TickLog {
  /** the newest tick issued */
  readonly latest: Effect.Effect<RefreshTick | undefined, SqlError>
  /** the last import logged */
  readonly importsVersion: Effect.Effect<number, SqlError>
  /**
   * the tickers of the imports logged after `version`, up to `upTo`: those whose bars were
   * imported, and those a live feed told fundamentals or news of
   */
  readonly importedSince: (version: number, upTo: number) => Effect.Effect<ImportedTickers, SqlError>
  /** asks for a refresh now: the request's number, answered by the next tick issued */
  readonly requestRefresh: (now: number) => Effect.Effect<number, SqlError>
}
