/** The account's API keys from the dashboard: listed (never the key), issued (shown once), revoked. */
import { Effect, Option } from "effect"
import { Accounts, type KeyInfo } from "../../accounts/Accounts.js"
import type { RequestOf } from "../common/request.js"
import { NotFound, orUnavailable, Unauthenticated } from "../errors.js"
import type { DashboardApi } from "./Api.js"
import { CurrentSession } from "./DashboardAuth.js"

const iso = (seconds: number | null) => (seconds === null ? null : new Date(seconds * 1000).toISOString())

const view = (k: KeyInfo) => ({
  key_id: k.id,
  prefix: k.prefix,
  mode: k.mode,
  created_at: new Date(k.createdAt * 1000).toISOString(),
  last_used_at: iso(k.lastUsedAt),
  revoked_at: iso(k.revokedAt)
})

export const listKeys = () =>
  Effect.gen(function* () {
    const session = yield* CurrentSession
    const keys = yield* orUnavailable((yield* Accounts).listKeys(session.user.accountId))
    return { keys: keys.map(view) }
  })

export const createKey = ({ payload }: RequestOf<typeof DashboardApi, "createKey">) =>
  Effect.gen(function* () {
    const session = yield* CurrentSession
    const mode = payload.mode ?? "test"
    const created = yield* orUnavailable((yield* Accounts).createKey(session.user.accountId, mode))
    if (Option.isNone(created)) {
      return yield* new Unauthenticated({ message: "the signed-in user's account no longer exists: sign in again" })
    }
    yield* Effect.logInfo("key issued from the dashboard").pipe(
      Effect.annotateLogs({ user_id: session.user.id, key_id: created.value.keyId, mode })
    )
    return {
      key_id: created.value.keyId,
      api_key: created.value.apiKey,
      prefix: created.value.prefix,
      mode,
      created_at: new Date(created.value.createdAt * 1000).toISOString()
    }
  })

export const revokeKey = ({ path }: RequestOf<typeof DashboardApi, "revokeKey">) =>
  Effect.gen(function* () {
    const session = yield* CurrentSession
    const revoked = yield* orUnavailable((yield* Accounts).revokeOwnKey(session.user.accountId, path.key_id))
    if (!revoked) return yield* new NotFound({ message: `no key ${path.key_id} of this account (or it was revoked)` })
    yield* Effect.logInfo("key revoked from the dashboard").pipe(
      Effect.annotateLogs({ user_id: session.user.id, key_id: path.key_id })
    )
    return { ok: true as const }
  })
