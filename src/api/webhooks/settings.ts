/**
 * The rules of a subscription's delivery settings — channel, target, chat
 * URL, device, cadence, name, extra fields — for a new webhook (`newSettings`,
 * every subscribe and create endpoint) and for an edit (`settingsEdit`, PATCH):
 * one validator per field, so create and update refuse the same values with
 * the same messages.
 */
import { Effect, Either } from "effect"
import type { AuthenticatedKey } from "../../accounts/Accounts.js"
import { parseCadence } from "../../alerts/cadence.js"
import { AppConfig } from "../../config/AppConfig.js"
import { validateTargetUrl } from "../../delivery/targetSafety.js"
import { Deliveries } from "../../store/deliveries.js"
import type { Cadence, Channel, WebhookRecord } from "../../store/webhooks.js"
import { BadRequest, ChannelNotImplemented, orUnavailable } from "../errors.js"
import { validateFields } from "../scan/params.js"
import { MAX_WEBHOOK_NAME } from "./Api.js"

/** The delivery fields of a subscribe or create request. */
export interface DeliveryInput {
  readonly target_url?: string | null | undefined
  readonly channel?: string | undefined
  readonly chat_url?: string | null | undefined
  readonly device_id?: string | null | undefined
  readonly cadence?: string | undefined
  readonly name?: string | undefined
  readonly fields?: string | ReadonlyArray<string> | undefined
}

/** The fields a PATCH may change. */
export interface DeliveryEditInput {
  readonly name?: string | undefined
  readonly target_url?: string | null | undefined
  readonly chat_url?: string | null | undefined
  readonly cadence?: string | undefined
  readonly fields?: string | ReadonlyArray<string> | undefined
}

/** A new webhook's delivery settings, validated. */
export interface Settings {
  readonly channel: Channel
  readonly targetUrl: string | null
  readonly chatUrl: string | null
  readonly deviceId: string | null
  readonly cadence: Cadence
  readonly name: string
  readonly fields: ReadonlyArray<string>
}

/** What an edit changes. */
export interface SettingsEdit {
  readonly name?: string
  readonly targetUrl?: string
  readonly chatUrl?: string
  readonly cadence?: Cadence
  readonly fields?: ReadonlyArray<string>
}

const CHANNELS: ReadonlyArray<Channel> = ["webhook", "chat", "in_app", "mobile_push"]

/** An outbound URL (`target_url`, `chat_url`), checked for safety (delivery/targetSafety.ts). */
const checkUrl = (parameter: string, raw: string) =>
  Effect.flatMap(AppConfig, (config) => {
    const checked = validateTargetUrl(raw, { allowInsecure: config.webhookAllowInsecureTargets })
    return Either.isLeft(checked)
      ? Effect.fail(new BadRequest({ message: checked.left.reason.replace(/^target_url/, parameter) }))
      : Effect.succeed(checked.right.toString())
  })

/** A name given by the caller: not blank, at most 80 characters; trimmed. */
const checkName = (raw: string): Effect.Effect<string, BadRequest> => {
  if (raw.trim() === "") return Effect.fail(new BadRequest({ message: "name must not be blank" }))
  if (raw.length > MAX_WEBHOOK_NAME) {
    return Effect.fail(
      new BadRequest({ message: `name must be at most ${MAX_WEBHOOK_NAME} characters (got ${raw.length})` })
    )
  }
  return Effect.succeed(raw.trim())
}

/** A name made from the condition: cut to 80 characters. */
const defaultNameOf = (text: string) => {
  const name = text.trim()
  return name.length > MAX_WEBHOOK_NAME ? `${name.slice(0, MAX_WEBHOOK_NAME - 1)}…` : name
}

export const checkCadence = (raw: string): Effect.Effect<Cadence, BadRequest> => {
  const cadence = parseCadence(raw)
  return cadence === undefined
    ? Effect.fail(
        new BadRequest({
          message: `cadence must be realtime, hourly or exchange_open (1m is an alias of realtime; 5m and 15m are no longer offered); got ${JSON.stringify(raw)}`
        })
      )
    : Effect.succeed(cadence)
}

const given = (value: string | null | undefined): value is string =>
  value !== undefined && value !== null && value !== ""

/** A device of the account for `mobile_push`. */
const checkDevice = (key: AuthenticatedKey, id: string | null | undefined) =>
  Effect.gen(function* () {
    if (!given(id)) {
      return yield* new BadRequest({
        message: "device_id is required for channel mobile_push: register the device with POST /v2/devices/register"
      })
    }
    const device = yield* orUnavailable((yield* Deliveries).device(key.account.id, id))
    if (device === undefined) {
      return yield* new BadRequest({
        message: `device_id ${JSON.stringify(id)} is not registered to this account (POST /v2/devices/register)`
      })
    }
    return device.id
  })

const checkChannel = (raw: string | undefined) => {
  const channel = raw?.trim().toLowerCase()
  if (channel === "slack") {
    return Effect.fail(
      new ChannelNotImplemented({
        message: "channel slack is reserved and not available: use channel chat with a chat_url"
      })
    )
  }
  if (channel !== undefined && !CHANNELS.includes(channel as Channel)) {
    return Effect.fail(
      new BadRequest({
        message: `channel must be one of webhook, chat, in_app, mobile_push (got ${JSON.stringify(raw)})`
      })
    )
  }
  return Effect.succeed(channel as Channel | undefined)
}

/**
 * Channel, target, cadence, name and fields of a new webhook, validated: the channel is the one
 * given, else `webhook` with a `target_url`, `chat` with a `chat_url`, else `in_app`; `name`
 * defaults to `defaultName` (the condition) cut to 80 characters.
 */
export const newSettings = (key: AuthenticatedKey, input: DeliveryInput, defaultName: string) =>
  Effect.gen(function* () {
    const targetGiven = given(input.target_url)
    const chatGiven = given(input.chat_url)
    const channel: Channel =
      (yield* checkChannel(input.channel)) ?? (targetGiven ? "webhook" : chatGiven ? "chat" : "in_app")
    if (channel === "webhook" && !targetGiven) {
      return yield* new BadRequest({ message: "target_url is required for channel webhook" })
    }
    if (channel === "chat" && !chatGiven) {
      return yield* new BadRequest({ message: "chat_url is required for channel chat" })
    }
    const targetUrl = channel === "webhook" ? yield* checkUrl("target_url", input.target_url!) : null
    const chatUrl = channel === "chat" ? yield* checkUrl("chat_url", input.chat_url!) : null
    const deviceId = channel === "mobile_push" ? yield* checkDevice(key, input.device_id) : null
    if (channel !== "webhook" && targetGiven) {
      return yield* new BadRequest({ message: `target_url applies to channel webhook only (channel is ${channel})` })
    }
    if (channel !== "chat" && chatGiven) {
      return yield* new BadRequest({ message: `chat_url applies to channel chat only (channel is ${channel})` })
    }
    const settings: Settings = {
      channel,
      targetUrl,
      chatUrl,
      deviceId,
      cadence: input.cadence === undefined ? "realtime" : yield* checkCadence(input.cadence),
      name: input.name === undefined ? defaultNameOf(defaultName) : yield* checkName(input.name),
      fields: yield* validateFields(input.fields ?? [])
    }
    return settings
  })

/** What a PATCH of webhook `w` changes, validated by the same rules as a new webhook's settings. */
export const settingsEdit = (w: WebhookRecord, input: DeliveryEditInput) =>
  Effect.gen(function* () {
    const edit: { -readonly [K in keyof SettingsEdit]: SettingsEdit[K] } = {}
    if (input.name !== undefined) edit.name = yield* checkName(input.name)
    if (input.target_url !== undefined) {
      if (w.channel !== "webhook") {
        return yield* new BadRequest({
          message: `target_url applies to channel webhook only (channel is ${w.channel})`
        })
      }
      if (input.target_url === null) {
        return yield* new BadRequest({ message: "target_url cannot be removed from a webhook-channel webhook" })
      }
      edit.targetUrl = yield* checkUrl("target_url", input.target_url)
    }
    if (input.chat_url !== undefined) {
      if (w.channel !== "chat") {
        return yield* new BadRequest({ message: `chat_url applies to channel chat only (channel is ${w.channel})` })
      }
      if (input.chat_url === null) {
        return yield* new BadRequest({ message: "chat_url cannot be removed from a chat webhook" })
      }
      edit.chatUrl = yield* checkUrl("chat_url", input.chat_url)
    }
    if (input.cadence !== undefined) edit.cadence = yield* checkCadence(input.cadence)
    if (input.fields !== undefined) edit.fields = yield* validateFields(input.fields)
    return edit as SettingsEdit
  })
