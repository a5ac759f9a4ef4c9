/**
 * REPLAY_FILE (`AppConfig.replay`): the file's tickers replay its bars from
 * REPLAY_START over the simulator (`replay.ts`), read once at start.
 */
import { readFileSync } from "node:fs"
import { Effect } from "effect"
import type { TickerDirectory } from "../tickers/directory.js"
import { CsvBarParser } from "./csvBars.js"
import type { MarketSource } from "./MarketSource.js"
import { ReplaySource } from "./replay.js"

export interface ReplayConfig {
  readonly file: string
  readonly ticker: string | undefined
  readonly start: string
}

/** What wraps the simulator in the replay of `replay`'s file. */
export const replayFromFile = (replay: ReplayConfig, directory: TickerDirectory) =>
  Effect.gen(function* () {
    const { file, ticker, start } = replay
    const parsed = yield* Effect.try({
      try: () => {
        const parser = new CsvBarParser({ file, ticker, resolveTicker: (s) => directory.lookup(s)?.ticker })
        parser.push(readFileSync(file, "utf8"))
        return parser.finish()
      },
      catch: (e) => new Error(`REPLAY_FILE: ${(e as Error).message}`)
    })
    const tapes = [...parsed].map(([symbol, bars]) => ({
      slot: directory.indexOf(symbol),
      crypto: directory.lookup(symbol)?.asset_type === "CRYPTO",
      bars
    }))
    yield* Effect.logInfo("replaying bars").pipe(Effect.annotateLogs({ file, tickers: [...parsed.keys()], start }))
    return (simulator: MarketSource) => new ReplaySource(simulator, tapes, start)
  })
