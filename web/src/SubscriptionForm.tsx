/**
 * A subscription's form, to create one or edit it: every field (channel and where it delivers,
 * cadence, extra fields, the firing options) and, before saving, the rule's dry-run over a period
 * the user picks. A changed rule has to be previewed again before it can be saved.
 */
import { type FormEvent, useEffect, useState } from "react"
import { listUniverses, type Session, type UniverseInfo } from "./api"
import { DryRunResult } from "./DryRunResult"
import { ErrorNote } from "./errors"
import { QueryEditor } from "./QueryEditor"
import {
  type Cadence,
  type Channel,
  createWebhook,
  type DryRun,
  dryRun,
  type FireOn,
  type Rule,
  updateWebhook,
  type Webhook
} from "./subscriptionsApi"
import { useVocabulary } from "./vocabulary"

const day = (msAgo: number) => new Date(Date.now() - msAgo).toISOString().slice(0, 10)

const CHANNELS: ReadonlyArray<{ readonly value: Channel; readonly label: string }> = [
  { value: "in_app", label: "In-app (your inbox)" },
  { value: "webhook", label: "Webhook (signed POST)" },
  { value: "chat", label: "Chat (incoming-webhook URL)" },
  { value: "mobile_push", label: "Mobile push (a registered device)" }
]

const CADENCES: ReadonlyArray<{ readonly value: Cadence; readonly label: string }> = [
  { value: "realtime", label: "Every refresh" },
  { value: "hourly", label: "Hourly" },
  { value: "exchange_open", label: "At the open" }
]

const FIRE_ON: ReadonlyArray<{ readonly value: FireOn; readonly label: string }> = [
  { value: "enter", label: "Tickers entering" },
  { value: "exit", label: "Tickers leaving" },
  { value: "both", label: "Both" }
]

const list = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((f) => f.trim())
    .filter((f) => f !== "")

const orNull = (text: string) => (text.trim() === "" ? null : text.trim())

/** a duration's field (`90s`, `15m`, `4h`, `1d`), described by the form's durations hint */
const DurationField = (props: {
  readonly label: string
  readonly value: string
  readonly onChange: (value: string) => void
  readonly placeholder: string
}) => (
  <label>
    {props.label}
    <input
      value={props.value}
      onChange={(e) => props.onChange(e.target.value)}
      placeholder={props.placeholder}
      size={6}
      aria-describedby="durations-hint"
    />
  </label>
)

export interface Prefill {
  readonly q?: string
  readonly universe?: string
}

export const SubscriptionForm = ({
  session,
  existing,
  prefill,
  onSaved
}: {
  readonly session: Session
  readonly existing?: Webhook
  readonly prefill?: Prefill
  readonly onSaved: (saved: Webhook) => void
}) => {
  const [name, setName] = useState(existing?.name ?? (prefill?.q ?? "").slice(0, 80))
  const [q, setQ] = useState(existing?.q ?? prefill?.q ?? "")
  const [universe, setUniverse] = useState(existing?.universe_id ?? prefill?.universe ?? "")
  const [channel, setChannel] = useState<Channel>(existing?.channel ?? "in_app")
  const [targetUrl, setTargetUrl] = useState(existing?.target_url ?? "")
  const [chatUrl, setChatUrl] = useState("")
  const [deviceId, setDeviceId] = useState(existing?.device_id ?? "")
  const [cadence, setCadence] = useState<Cadence>(existing?.cadence ?? "realtime")
  const [fields, setFields] = useState((existing?.fields ?? []).join(", "))
  const [fireOn, setFireOn] = useState<FireOn>(existing?.fire_on ?? "enter")
  const [pendingFor, setPendingFor] = useState(existing?.pending_for ?? "0s")
  const [clearQ, setClearQ] = useState(existing?.clear_q ?? "")
  const [cooldown, setCooldown] = useState(existing?.cooldown ?? "0s")
  const [repeat, setRepeat] = useState(existing?.repeat_interval ?? "")
  const [from, setFrom] = useState(day(90 * 86_400_000))
  const [to, setTo] = useState(day(0))
  const [universes, setUniverses] = useState<ReadonlyArray<UniverseInfo>>([])
  const vocabulary = useVocabulary()
  const [preview, setPreview] = useState<{ readonly key: string; readonly run: DryRun } | undefined>(undefined)
  const [error, setError] = useState<unknown>(undefined)
  const [busy, setBusy] = useState(false)

  useEffect(() => {
    listUniverses().then(setUniverses, () => setUniverses([]))
  }, [])

  const rule: Rule = {
    q,
    ...(universe === "" ? {} : { universe }),
    cadence,
    fire_on: fireOn,
    pending_for: pendingFor.trim() === "" ? "0s" : pendingFor.trim(),
    clear_q: orNull(clearQ),
    cooldown: cooldown.trim() === "" ? "0s" : cooldown.trim(),
    repeat_interval: orNull(repeat)
  }
  const ruleKey = JSON.stringify(rule)
  const storedKey =
    existing === undefined
      ? undefined
      : JSON.stringify({
          q: existing.q,
          ...(existing.universe_id === null ? {} : { universe: existing.universe_id }),
          cadence: existing.cadence,
          fire_on: existing.fire_on,
          pending_for: existing.pending_for,
          clear_q: existing.clear_q,
          cooldown: existing.cooldown,
          repeat_interval: existing.repeat_interval
        })
  // a new rule, or a changed one, is saved only once its dry-run has been seen
  const previewed = preview?.key === ruleKey || (storedKey !== undefined && storedKey === ruleKey)

  const work = async (step: () => Promise<void>) => {
    setBusy(true)
    setError(undefined)
    try {
      await step()
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }

  const runPreview = () =>
    work(async () => {
      const run = await dryRun(session, rule, { from, ...(to === "" ? {} : { to }) })
      setPreview({ key: ruleKey, run })
    })

  const save = (event: FormEvent) => {
    event.preventDefault()
    if (!previewed) return
    void work(async () => {
      const label = name.trim() === "" ? q.slice(0, 80) : name.trim()
      if (existing === undefined) {
        onSaved(
          await createWebhook(session, rule, {
            channel,
            name: label,
            fields: list(fields),
            ...(channel === "webhook" ? { target_url: targetUrl.trim() } : {}),
            ...(channel === "chat" ? { chat_url: chatUrl.trim() } : {}),
            ...(channel === "mobile_push" ? { device_id: deviceId.trim() } : {})
          })
        )
      } else {
        const { q: _q, universe: _u, ...firing } = rule
        onSaved(
          await updateWebhook(session, existing.id, {
            name: label,
            fields: list(fields),
            ...firing,
            ...(channel === "webhook" && targetUrl.trim() !== (existing.target_url ?? "")
              ? { target_url: targetUrl.trim() }
              : {}),
            ...(channel === "chat" && chatUrl.trim() !== "" ? { chat_url: chatUrl.trim() } : {})
          })
        )
      }
    })
  }

  const fixed = existing !== undefined
  return (
    <form onSubmit={save} className="subscription-form" aria-label={fixed ? "Edit subscription" : "New subscription"}>
      <fieldset>
        <legend>Rule</legend>
        <label className="wide">
          Name
          <input value={name} onChange={(e) => setName(e.target.value)} maxLength={80} />
        </label>
        <div className="wide">
          <label htmlFor="subscription-q">Query</label>
          <QueryEditor
            id="subscription-q"
            value={q}
            onChange={setQ}
            vocabulary={vocabulary}
            rows={2}
            readOnly={fixed}
            required
          />
        </div>
        {fixed ? (
          <p className="muted small">
            The query, universe and channel are fixed once created: make a new one to change them.
          </p>
        ) : null}
        <div className="row">
          <label>
            Universe
            <select value={universe} onChange={(e) => setUniverse(e.target.value)} disabled={fixed}>
              <option value="">Whole market</option>
              {universes.map((u) => (
                <option key={u.id} value={u.id}>
                  {u.name} ({u.size})
                </option>
              ))}
              {universe !== "" && !universes.some((u) => u.id === universe) ? (
                <option value={universe}>{universe}</option>
              ) : null}
            </select>
          </label>
          <label>
            Cadence
            <select value={cadence} onChange={(e) => setCadence(e.target.value as Cadence)}>
              {CADENCES.map((c) => (
                <option key={c.value} value={c.value}>
                  {c.label}
                </option>
              ))}
            </select>
          </label>
          <label>
            Fire on
            <select value={fireOn} onChange={(e) => setFireOn(e.target.value as FireOn)}>
              {FIRE_ON.map((f) => (
                <option key={f.value} value={f.value}>
                  {f.label}
                </option>
              ))}
            </select>
          </label>
        </div>
        <div className="row">
          <DurationField label="Pending for" value={pendingFor} onChange={setPendingFor} placeholder="0s" />
          <DurationField label="Cooldown" value={cooldown} onChange={setCooldown} placeholder="0s" />
          <DurationField label="Repeat every" value={repeat} onChange={setRepeat} placeholder="never" />
        </div>
        <p id="durations-hint" className="muted small">
          Durations are a number and s, m, h or d (<code>90s</code>, <code>15m</code>, <code>4h</code>, <code>1d</code>
          ). Pending for: a ticker enters only after matching that long. Cooldown: a re-entry within it after a fire
          sends nothing. Repeat every: a ticker still inside is sent again.
        </p>
        <div className="wide">
          <label htmlFor="subscription-clear-q">Clear when</label>
          <QueryEditor
            id="subscription-clear-q"
            value={clearQ}
            onChange={setClearQ}
            vocabulary={vocabulary}
            rows={1}
            placeholder="empty: a ticker leaves when the query stops holding"
          />
        </div>
      </fieldset>
      <fieldset>
        <legend>Delivery</legend>
        <div className="row">
          <label>
            Channel
            <select value={channel} onChange={(e) => setChannel(e.target.value as Channel)} disabled={fixed}>
              {CHANNELS.map((c) => (
                <option key={c.value} value={c.value}>
                  {c.label}
                </option>
              ))}
            </select>
          </label>
          {channel === "webhook" ? (
            <label className="grow">
              Target URL
              <input
                type="url"
                value={targetUrl}
                onChange={(e) => setTargetUrl(e.target.value)}
                placeholder="https://example.com/hooks/vigil"
                required
              />
            </label>
          ) : channel === "chat" ? (
            <label className="grow">
              Chat URL
              <input
                type="url"
                value={chatUrl}
                onChange={(e) => setChatUrl(e.target.value)}
                placeholder={
                  existing?.channel_config_present === true ? "stored (enter a new one to replace it)" : "https://…"
                }
                required={!fixed}
              />
            </label>
          ) : channel === "mobile_push" ? (
            <label className="grow">
              Device
              <input
                value={deviceId}
                onChange={(e) => setDeviceId(e.target.value)}
                placeholder="dev_… (POST /v2/devices/register)"
                readOnly={fixed}
                required
              />
            </label>
          ) : null}
        </div>
        <label className="wide">
          Extra fields
          <input
            value={fields}
            onChange={(e) => setFields(e.target.value)}
            placeholder="rsi_14, volume (columns added to each alert's rows)"
            spellCheck={false}
          />
        </label>
      </fieldset>
      <fieldset>
        <legend>Dry-run</legend>
        <div className="row">
          <label>
            From
            <input type="date" value={from} onChange={(e) => setFrom(e.target.value)} required />
          </label>
          <label>
            To
            <input type="date" value={to} onChange={(e) => setTo(e.target.value)} />
          </label>
          <button type="button" disabled={busy || q.trim() === ""} onClick={runPreview}>
            Preview
          </button>
        </div>
        {preview === undefined ? (
          <p className="muted small">See what the rule would have sent over the period before saving it.</p>
        ) : (
          <>
            {preview.key === ruleKey ? null : (
              <p className="muted small">The rule changed since this preview: preview it again to save.</p>
            )}
            <DryRunResult run={preview.run} detailed />
          </>
        )}
      </fieldset>
      <ErrorNote error={error} q={q} />
      <div className="row">
        <button type="submit" disabled={busy || !previewed}>
          {fixed ? "Save changes" : "Create subscription"}
        </button>
        <a href={fixed ? `#/subscriptions/${encodeURIComponent(existing.id)}` : "#/subscriptions"}>Cancel</a>
      </div>
    </form>
  )
}
