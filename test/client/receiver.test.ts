/**
 * The webhook receiver helper (issue 19, item 3): signatures verified (either secret during a
 * rotation), a retried delivery dropped, a gap filled from the feed in sequence order, test pings
 * passed through, racing deliveries of one webhook handed over in order.
 */
import { randomBytes } from "node:crypto"
import { Webhook } from "standardwebhooks"
import { describe, expect, it } from "vitest"
import { makeReceiver, type VigilEvent, WebhookVerificationError } from "../../src/client.js"

const secret = () => `whsec_${randomBytes(24).toString("base64")}`

const event = (sequence: number, webhook = "wh_a"): VigilEvent => ({
  type: "webhook.fired",
  timestamp: new Date().toISOString(),
  data: { webhook_id: webhook, sequence, matches: [{ ticker: `T${sequence}` }] }
})

const delivery = (key: string, body: VigilEvent, id = `msg_${body.data.sequence}`) => {
  const text = JSON.stringify(body)
  const now = new Date()
  return {
    headers: {
      "Webhook-Id": id,
      "Webhook-Timestamp": String(Math.floor(now.getTime() / 1000)),
      "Webhook-Signature": new Webhook(key).sign(id, now, text)
    },
    body: text
  }
}

describe("makeReceiver", () => {
  it("verifies, drops a retried delivery, fills a gap from the feed, and passes test pings", async () => {
    const key = secret()
    const feed: Array<[string, number]> = []
    const receiver = makeReceiver({
      secrets: [key],
      readFeed: async (webhook, after) => {
        feed.push([webhook, after])
        return [event(2), event(3), event(4), event(5)].filter((e) => e.data.sequence! > after)
      }
    })
    const seq = async (d: ReturnType<typeof delivery>) =>
      (await receiver.receive(d.headers, d.body)).events.map((e) => e.data.sequence)

    expect(await seq(delivery(key, event(1)))).toEqual([1])
    const retried = delivery(key, event(1))
    expect(await receiver.receive(retried.headers, retried.body)).toEqual({ events: [], duplicate: true })
    // 2 and 3 never came: read from the feed, in order, before 4
    expect(await seq(delivery(key, event(4)))).toEqual([2, 3, 4])
    expect(feed).toEqual([["wh_a", 1]])
    expect(await seq(delivery(key, event(3)))).toEqual([])
    expect(receiver.handled.get("wh_a")).toBe(4)
    // another webhook keeps its own order
    expect(await seq(delivery(key, event(7, "wh_b")))).toEqual([7])

    const ping = { ...event(1), data: { webhook_id: "wh_a", test: true } }
    expect((await receiver.receive(delivery(key, ping, "msg_ping").headers, JSON.stringify(ping))).events).toHaveLength(
      1
    )
  })

  it("refuses a wrong signature, and takes the previous secret during a rotation", async () => {
    const [current, previous] = [secret(), secret()]
    const receiver = makeReceiver({ secrets: [current, previous] })
    const old = delivery(previous!, event(1))
    expect((await receiver.receive(old.headers, old.body)).events).toHaveLength(1)
    const forged = delivery(secret(), event(2))
    await expect(receiver.receive(forged.headers, forged.body)).rejects.toBeInstanceOf(WebhookVerificationError)
    const tampered = delivery(current!, event(2))
    await expect(receiver.receive(tampered.headers, tampered.body.replace("T2", "T9"))).rejects.toBeInstanceOf(
      WebhookVerificationError
    )
  })

  it("hands over racing deliveries of one webhook in sequence order", async () => {
    const key = secret()
    let release: () => void = () => undefined
    const gate = new Promise<void>((r) => (release = r))
    const receiver = makeReceiver({
      secrets: [key],
      readFeed: async (_webhook, after) => {
        await gate
        return [event(2)].filter((e) => e.data.sequence! > after)
      }
    })
    const [d1, d2, d3] = [delivery(key, event(1)), delivery(key, event(2)), delivery(key, event(3))]
    await receiver.receive(d1.headers, d1.body)
    const third = receiver.receive(d3.headers, d3.body)
    const second = receiver.receive(d2.headers, d2.body)
    release()
    expect((await third).events.map((e) => e.data.sequence)).toEqual([2, 3])
    expect(await second).toEqual({ events: [], duplicate: true })
  })
})
