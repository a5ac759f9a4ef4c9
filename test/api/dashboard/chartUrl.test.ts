/**
 * `chart_url` (issue 18, item 7; the operator contract's DASHBOARD_URL): with the dashboard's base
 * set, every event's rows link to the ticker's chart at the fire's data time, on every channel
 * (here the in-app inbox, after a refresh and a test ping).
 */
import { describe, expect, it } from "vitest"
import { admin, api } from "../../support/server.js"
import { serveForSuite } from "../../support/suiteServer.js"

describe("events with DASHBOARD_URL set", () => {
  const server = serveForSuite({ DASHBOARD_URL: "https://vigil.example.com" })

  it("carry chart_url on each row: the ticker's chart in the dashboard at the data time", async () => {
    const { api_key: key } = (await admin(server, "POST", "/admin/accounts", { plan: "pro" })).body
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await api(server, key, path, {
        method,
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })
      return res
    }
    const sub = await call("POST", "/v2/tickers/msft/subscribe", { condition: "price > 0" })
    expect(sub.status).toBe(200)
    expect((await admin(server, "POST", "/admin/refresh")).status).toBe(200)
    expect((await call("POST", `/v2/webhooks/${sub.body.id}/test`)).status).toBeLessThan(300)
    let notes: any
    for (let k = 0; k < 200; k++) {
      notes = (await call("GET", "/v2/notifications")).body
      if (notes.count >= 2) break
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(notes.count).toBe(2)
    for (const n of notes.notifications) {
      const [row] = n.event.data.matches
      expect(row.ticker).toBe("MSFT")
      expect(row.chart_url).toBe(
        `https://vigil.example.com/#/tickers/MSFT?at=${encodeURIComponent(n.event.data.as_of)}`
      )
    }
  })
})
