/**
 * The store's side of the market's ports (`src/market/ports.ts`): imported bars
 * (`ImportedBars`; none at all on a database this start creates, so the market
 * loads while it is created), a live feed's fundamentals and news
 * (`FeedInputsStore`), the feed switch (`MarketFeed`), and the refresh
 * ticks a following market reads (`Ticks`).
 */
import { Effect, Layer, Option } from "effect"
import { FollowTicks } from "../market/followTicks.js"
import { MarketBars, MarketFeedInputs, MarketFeedSwitch } from "../market/ports.js"
import { Readiness } from "../observability/Readiness.js"
import { NewDatabase } from "./Database.js"
import { FeedInputsStore } from "./feedInputs.js"
import { ImportedBars } from "./importedBars.js"
import { MarketFeed } from "./marketFeed.js"
import { Ticks } from "./ticks.js"

const MarketBarsLive = Layer.effect(
  MarketBars,
  Effect.gen(function* () {
    const bars = yield* ImportedBars
    const readiness = yield* Readiness
    const newDatabase = Option.getOrElse(yield* Effect.serviceOption(NewDatabase), () => false)
    return {
      initial: newDatabase
        ? Effect.succeed(new Map())
        : readiness.await("migrations").pipe(Effect.zipRight(bars.loadAll)),
      load: (tickers) => bars.load(tickers),
      replace: (byTicker) => bars.replace(byTicker)
    }
  })
)

const FeedInputsLive = Layer.effect(
  MarketFeedInputs,
  Effect.gen(function* () {
    const stored = yield* FeedInputsStore
    const readiness = yield* Readiness
    const newDatabase = Option.getOrElse(yield* Effect.serviceOption(NewDatabase), () => false)
    return {
      ...stored,
      initial: newDatabase
        ? Effect.succeed({ fundamentals: [], mentions: [] })
        : readiness.await("migrations").pipe(Effect.zipRight(stored.initial))
    }
  })
).pipe(Layer.provide(FeedInputsStore.Default))

const FeedSwitchLive = Layer.effect(MarketFeedSwitch, MarketFeed).pipe(Layer.provide(MarketFeed.Default))

/** What `Market` needs of the store (over `ImportedBars`, the database and the readiness gate). */
export const MarketStoreLive = Layer.mergeAll(MarketBarsLive, FeedInputsLive, FeedSwitchLive)

/** The market follows the refresh ticks in the store (a split deployment). */
export const FollowTicksLive = Layer.effect(FollowTicks, Ticks)
