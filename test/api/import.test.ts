/**
 * `POST /admin/import` in bulk (issue 17, item 6), over HTTP against the service in this process:
 * a gzip-encoded whole-market day (untracked symbols skipped and counted), several files in one
 * multipart body (a bad one stops the import, those before it stay stored), a splits file that
 * adjusts the bars before it whichever arrives first, and what the live market shows after.
 */
import { gzipSync } from "node:zlib"
import { describe, expect, it } from "vitest"
import { addTradingDays, equityTradingDate } from "../../src/market/calendar.js"
import { aggregateRow, dayAggregatesCsv, flatFileTicker } from "../support/dayAggregates.js"
import { SAMPLE } from "../support/inProcess.js"
import { sampleDirectory } from "../support/sampleTickers.js"
import { ADMIN_TOKEN, api, createAccount } from "../support/server.js"
import { serveForSuite } from "../support/suiteServer.js"

const post = async (
  server: { url: string },
  body: string | Uint8Array,
  headers: Record<string, string> = {},
  query = ""
): Promise<{ status: number; body: any }> => {
  const res = await fetch(`${server.url}/admin/import${query}`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "text/csv", ...headers },
    body
  })
  return { status: res.status, body: await res.json() }
}

/** the close a generated day file gives a ticker */
const closeOf = (ticker: string, date: string) => {
  const t = sampleDirectory().lookup(ticker)!
  return Number(aggregateRow(flatFileTicker(t), date, t.asset_type === "CRYPTO").split(",")[3])
}

describe("bulk import over HTTP", () => {
  const server = serveForSuite({}, SAMPLE)
  const sample = sampleDirectory()
  /** trading days a week back: within the market's window, before the current session */
  const today = equityTradingDate(Date.now())
  const day = (k: number) => addTradingDays(today, -10 + k)
  let key = ""
  const priceOn = async (ticker: string, date: string) => {
    if (key === "") key = (await createAccount(server, "pro")).api_key
    const res = await api(server, key, `/v2/tickers/${ticker}?asof=${date}`)
    expect(res.status).toBe(200)
    expect(res.body.data.date).toBe(date)
    return res.body.data.price as number
  }

  it("takes a gzip-encoded whole-market day: tracked tickers stored and applied, the others skipped and counted", async () => {
    const date = day(0)
    const text = dayAggregatesCsv(date, sample.all, 25)
    const res = await post(server, gzipSync(text), { "content-encoding": "gzip" }, "?file=day_aggs.csv.gz")
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({
      rows: sample.size,
      from: date,
      to: date,
      splits: 0,
      skipped_tickers: 25,
      files: [
        {
          file: "day_aggs.csv.gz",
          layout: "aggregates",
          rows: sample.size,
          tickers: sample.size,
          from: date,
          to: date,
          skipped_tickers: 25
        }
      ]
    })
    expect(res.body.tickers).toHaveLength(sample.size)
    expect(res.body.files[0].skipped_examples.slice(0, 3)).toEqual(["ZZQ0", "ZZQ1", "ZZQ10"])
    expect(res.body.skipped).toHaveLength(25)
    // the live market holds the imported closes (shares on the New York date, crypto on the UTC date)
    expect(await priceOn("AAPL", date)).toBeCloseTo(closeOf("AAPL", date), 9)
    expect(await priceOn("BTC-USD", date)).toBeCloseTo(closeOf("BTC-USD", date), 9)
  }, 120_000)

  it("refuses bad gzip, an unknown encoding and a bad line with file:line, storing nothing", async () => {
    const bad = await post(server, "certainly not gzip", { "content-encoding": "gzip" }, "?file=x.csv.gz")
    expect(bad.status).toBe(400)
    expect(bad.body.error.message).toMatch(/^x\.csv\.gz: the gzip data is invalid/)
    const br = await post(server, "ticker,date,open,high,low,close,volume\n", { "content-encoding": "br" })
    expect(br.status).toBe(400)
    expect(br.body.error.message).toBe("Content-Encoding br is not supported: send gzip or an uncompressed body")
    const lines = dayAggregatesCsv(day(1), sample.all, 0).split("\n")
    lines[7] = lines[7]!.replace(/,[^,]*,[^,]*$/, ",not-a-time,1")
    const line = await post(server, gzipSync(lines.join("\n")), { "content-encoding": "gzip" }, "?file=d.csv.gz")
    expect(line.status).toBe(400)
    expect(line.body.error.message).toBe('d.csv.gz:8: window_start "not-a-time" is not nanoseconds since the epoch')
    expect(line.body.error.stored).toBeUndefined()
    const empty = await post(server, "")
    expect(empty.body.error.message).toBe("upload:1: the file is empty (no header)")
    // a multipart body that holds no file, or is not multipart at all, is answered (not left waiting)
    for (const body of [
      "",
      "{",
      "--xyz--\r\n",
      '--xyz\r\nContent-Disposition: form-data; name="a"\r\n\r\nb\r\n--xyz--\r\n'
    ]) {
      const res = await post(server, body, { "content-type": "multipart/form-data; boundary=xyz" })
      expect(res.status).toBe(400)
    }
    for (const type of ["multipart/form-data", "multipart/form-data; boundary=", 'multipart/form-data; boundary="']) {
      const res = await post(server, "--xyz\r\n\r\nabc\r\n--xyz--\r\n", { "content-type": type })
      expect(res.status).toBe(400)
    }
    // nothing of it stored: the day reads the simulated close
    expect(await priceOn("MSFT", day(1))).not.toBeCloseTo(closeOf("MSFT", day(1)), 6)
  }, 120_000)

  it("takes several files in one multipart body; a bad one stops there, the files before it stored", async () => {
    const form = (files: ReadonlyArray<readonly [string, Uint8Array | string]>) => {
      const data = new FormData()
      for (const [name, bytes] of files) {
        data.append("file", new Blob([bytes], { type: name.endsWith(".gz") ? "application/gzip" : "text/csv" }), name)
      }
      return data
    }
    const good = gzipSync(dayAggregatesCsv(day(2), sample.all, 3))
    const badLines = dayAggregatesCsv(day(3), sample.all, 3).split("\n")
    badLines[4] = badLines[4]!.replace(/^([^,]*),[^,]*,/, "$1,-5,")
    const bad = gzipSync(badLines.join("\n"))
    const after = dayAggregatesCsv(day(4), sample.all, 3)
    const res = await fetch(`${server.url}/admin/import`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      body: form([
        [`${day(2)}.csv.gz`, good],
        [`${day(3)}.csv.gz`, bad],
        [`${day(4)}.csv`, after]
      ])
    })
    const body = (await res.json()) as any
    expect(res.status).toBe(400)
    expect(body.error.message).toBe(`${day(3)}.csv.gz:5: volume must be >= 0 (got -5)`)
    expect(body.error.stored.files.map((f: any) => [f.file, f.rows])).toEqual([[`${day(2)}.csv.gz`, sample.size]])
    expect(await priceOn("AAPL", day(2))).toBeCloseTo(closeOf("AAPL", day(2)), 9)
    expect(await priceOn("AAPL", day(3))).not.toBeCloseTo(closeOf("AAPL", day(3)), 6)
    expect(await priceOn("AAPL", day(4))).not.toBeCloseTo(closeOf("AAPL", day(4)), 6)

    const ok = await fetch(`${server.url}/admin/import`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      body: form([
        [`${day(3)}.csv`, dayAggregatesCsv(day(3), sample.all, 3)],
        [`${day(4)}.csv`, after]
      ])
    })
    const summary = (await ok.json()) as any
    expect(ok.status).toBe(200)
    expect(summary).toMatchObject({ rows: 2 * sample.size, from: day(3), to: day(4), skipped_tickers: 3 })
    expect(summary.files.map((f: any) => f.file)).toEqual([`${day(3)}.csv`, `${day(4)}.csv`])
    expect(await priceOn("AAPL", day(4))).toBeCloseTo(closeOf("AAPL", day(4)), 9)
  }, 120_000)

  it("adjusts the bars before a split, the split imported after the bars or before them", async () => {
    const [d0, d1, d2] = [day(5), day(6), day(7)]
    const bars = (t: string) =>
      `ticker,date,open,high,low,close,volume\n${t},${d0},100,101,99,100,1000\n${t},${d1},102,103,101,102,1100\n${t},${d2},26,26.5,25.5,26,4800\n`
    // KO: bars, then the split
    expect((await post(server, bars("KO"))).status).toBe(200)
    expect(await priceOn("KO", d0)).toBe(100)
    const split = await post(server, `ticker,date,ratio\nKO,${d2},4\nZZQ1,${d2},2\n`, {}, "?file=splits.csv")
    expect(split.status).toBe(200)
    expect(split.body).toMatchObject({
      tickers: ["KO"],
      rows: 1,
      splits: 1,
      from: d2,
      to: d2,
      files: [{ file: "splits.csv", layout: "splits", rows: 1, tickers: 1, skipped_tickers: 1 }]
    })
    // PEP: the split, then the bars
    expect((await post(server, `ticker,date,ratio\nPEP,${d2},4\n`)).status).toBe(200)
    expect((await post(server, bars("PEP"))).status).toBe(200)
    for (const t of ["KO", "PEP"]) {
      expect(await priceOn(t, d0)).toBeCloseTo(25, 9)
      expect(await priceOn(t, d1)).toBeCloseTo(25.5, 9)
      expect(await priceOn(t, d2)).toBe(26)
    }
  }, 120_000)
})
