/**
 * The `chat` channel's message (pure): a Slack-compatible incoming-webhook body `{text}`
 * summarizing one `webhook.fired` event, e.g. (as Slack renders it)
 *
 *   🔔 Momentum: 3 tickers newly match `rsi_14 > 70` — AAPL $191.20 (+1.53%), MSFT $420.00 (-0.20%), BTC $67,012.00 (+2.10%)
 *   as of 2026-05-26T14:30:00Z
 *
 * At most 10 tickers are listed, then "and N more" (N counted from `matchCount`, which may
 * exceed the rows a fire carries). `day_change_pct` is a fraction (0.0153 → +1.53%). The
 * characters Slack treats as control characters (&, <, >) are escaped everywhere, so a name
 * or query can never inject a link or a mention; a backtick in `q` becomes ' so the code span
 * stays closed. A test ping is marked "(test)".
 */

export interface ChatEvent {
  readonly webhookName: string
  readonly q: string
  readonly asOf: string
  readonly test: boolean
  /** a `webhook.cleared`: the tickers no longer match (undefined: a `webhook.fired`) */
  readonly cleared?: boolean | undefined
  readonly matchCount: number
  readonly rows: ReadonlyArray<Record<string, unknown>>
}

export const CHAT_MAX_LISTED = 10

/** Escapes Slack's control characters. */
export const escapeSlack = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")

const num = (v: unknown): number | null => {
  const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : Number.NaN
  return Number.isFinite(n) ? n : null
}

/** $191.20, $67,012.00, $0.0001234 (4 significant digits below $1). */
export const formatPrice = (price: number): string => {
  const abs = Math.abs(price)
  const text =
    abs >= 1 || abs === 0
      ? abs.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })
      : String(Number(abs.toPrecision(4)))
  return `${price < 0 ? "-" : ""}$${text}`
}

/** A fraction as a signed percentage with 2 decimals: 0.0153 → +1.53%, -0.002 → -0.20%. */
export const formatPct = (fraction: number): string => {
  const pct = fraction * 100
  const rounded = Number(pct.toFixed(2))
  const sign = rounded > 0 ? "+" : rounded < 0 ? "-" : ""
  return `${sign}${Math.abs(rounded).toFixed(2)}%`
}

const rowSummary = (row: Record<string, unknown>): string => {
  const ticker = escapeSlack(String(row["ticker"] ?? "?"))
  const price = num(row["price"])
  const change = num(row["day_change_pct"])
  let text = ticker
  if (price !== null) text += ` ${formatPrice(price)}`
  if (change !== null) text += ` (${formatPct(change)})`
  return text
}

export const chatMessage = (event: ChatEvent): { text: string } => {
  const name = escapeSlack(event.webhookName)
  const q = escapeSlack(event.q.replace(/`/g, "'"))
  const total = Math.max(event.matchCount, event.rows.length)
  const label = event.test ? `${name} (test)` : name
  const asOf = `as of ${escapeSlack(event.asOf)}`
  if (total === 0) return { text: `🔔 ${label}: no tickers newly match \`${q}\`\n${asOf}` }
  const listed = event.rows.slice(0, CHAT_MAX_LISTED).map(rowSummary)
  const more = total - listed.length
  const verb = event.cleared
    ? total === 1
      ? "ticker no longer matches"
      : "tickers no longer match"
    : total === 1
      ? "ticker newly matches"
      : "tickers newly match"
  const head = `${event.cleared ? "✅" : "🔔"} ${label}: ${total} ${verb} \`${q}\``
  const list = listed.join(", ") + (more > 0 ? `, and ${more} more` : "")
  return { text: `${head} — ${list}\n${asOf}` }
}
