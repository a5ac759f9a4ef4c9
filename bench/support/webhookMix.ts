/**
 * The webhooks of the service benchmarks, inserted by SQL into a running service's database: the
 * mix of `bench:webhooks` — 60% ticker-scoped (`ticker = 'X' AND (…)`), 30% over top_100/top_10
 * (2,000 distinct predicates), 10% whole-market with distinct predicates — realtime, in-app, with
 * an empty state row each, spread over one enterprise account per 100 webhooks.
 */
import pg from "pg"
import { loadTickers } from "../../src/market/tickers/index.js"
import { conditionMaker, wholeMarketMaker } from "./conditions.js"

/** Inserts `n` webhooks drawn with `rand` into the database at `url`. */
export const insertWebhookMix = async (url: string, n: number, rand: () => number) => {
  const pick = <A>(xs: ReadonlyArray<A>) => xs[Math.floor(rand() * xs.length)]!
  const db = new pg.Client({ connectionString: url })
  await db.connect()
  try {
    const tickers = loadTickers().map((t) => t.ticker)
    const condition = conditionMaker(rand)
    const wholeMarket = wholeMarketMaker(rand, condition)
    const accounts = Array.from({ length: Math.max(1, Math.round(n / 100)) }, (_, k) => `acc_b${k}`)
    await db.query(
      `INSERT INTO accounts (id, plan, created_at, updated_at) SELECT id, 'enterprise', 1, 1 FROM unnest($1::text[]) AS id`,
      [accounts]
    )
    const ids: Array<string> = []
    const accs: Array<string> = []
    const qs: Array<string> = []
    const universes: Array<string | null> = []
    const pool = Array.from({ length: 2_000 }, condition)
    const whole = new Set<string>()
    for (let k = 0; k < n; k++) {
      ids.push(`wh_b${k}`)
      accs.push(accounts[k % accounts.length]!)
      if (k < n * 0.6) {
        qs.push(`ticker = '${pick(tickers)}' AND (${condition()})`)
        universes.push(null)
      } else if (k < n * 0.9) {
        qs.push(pick(pool))
        universes.push(rand() < 0.6 ? "top_100" : "top_10")
      } else {
        let q: string
        do q = wholeMarket()
        while (whole.has(q))
        whole.add(q)
        qs.push(q)
        universes.push(null)
      }
    }
    const now = Date.now()
    for (let from = 0; from < n; from += 10_000) {
      const to = from + 10_000
      await db.query(
        `INSERT INTO webhooks (id, account_id, name, q, universe_id, cadence, channel, fields, status,
           origin_type, origin_condition, created_at, updated_at, armed_at)
         SELECT w.id, w.a, w.id, w.q, w.u, 'realtime', 'in_app', ARRAY['rsi_14'], 'active', 'query', w.q,
           ${Math.floor(now / 1000)}, ${Math.floor(now / 1000)}, ${now}
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS w(id, a, q, u)`,
        [ids.slice(from, to), accs.slice(from, to), qs.slice(from, to), universes.slice(from, to)]
      )
      await db.query(
        `INSERT INTO webhook_states (webhook_id, armed_at) SELECT id, ${now} FROM unnest($1::text[]) AS id`,
        [ids.slice(from, to)]
      )
    }
  } finally {
    await db.end()
  }
}
