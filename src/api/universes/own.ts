/**
 * The account's universes: list, read, create (a slug from the name when none is given), update
 * (names, descriptions, ticker lists and edits, versioned), delete; the system universes read-
 * only.
 */
import { Effect } from "effect"
import type { AuthenticatedKey } from "../../accounts/Accounts.js"
import { Market } from "../../market/Market.js"
import { Tickers } from "../../market/tickers/index.js"
import { type TickersEdit, type UniverseRecord, Universes } from "../../store/universes.js"
import { nowIso } from "../common/clock.js"
import { isoAsOf, marketData } from "../common/market.js"
import { pageSize } from "../common/params.js"
import type { RequestOf } from "../common/request.js"
import { keysetPage, stringPosition } from "../cursor.js"
import { BadRequest, Forbidden, NotFound, orUnavailable, SlugTaken, type UnknownTickers } from "../errors.js"
import { MAX_DESCRIPTION_LENGTH, MAX_NAME_LENGTH, type UniversesApi } from "./Api.js"
import {
  canonicalTickers,
  checkSize,
  dayOf,
  editTickers,
  isSystemId,
  ownDoc,
  SLUG,
  SYSTEM_UNIVERSES,
  type SystemId,
  systemDoc
} from "./resolve.js"

/** `as_of` for reads that do not need the market: the live snapshot's when loaded, the clock's otherwise. */
const asOfNow = Effect.flatMap(Market, (m) => m.latest).pipe(
  Effect.map(isoAsOf),
  Effect.orElse(() => nowIso)
)

const notFound = (id: string) => new NotFound({ message: `universe ${JSON.stringify(id)} not found` })

const checkName = (name: string) =>
  name.trim().length === 0 || name.length > MAX_NAME_LENGTH
    ? Effect.fail(new BadRequest({ message: `name must be 1 to ${MAX_NAME_LENGTH} characters and not blank` }))
    : Effect.void

const checkDescription = (description: string | null | undefined) =>
  typeof description === "string" && description.length > MAX_DESCRIPTION_LENGTH
    ? Effect.fail(new BadRequest({ message: `description must be at most ${MAX_DESCRIPTION_LENGTH} characters` }))
    : Effect.void

/** A slug from a name: lower case, runs of other characters as `_`, at most 64 characters. */
export const slugFromName = (name: string): string => {
  const base = name
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, 64)
    .replace(/_+$/, "")
  return base.length === 0 ? "universe" : base
}

const candidate = (base: string, attempt: number): string => {
  if (attempt === 1 && !isSystemId(base)) return base
  const suffix = `_${Math.max(2, attempt)}`
  return `${base.slice(0, 64 - suffix.length)}${suffix}`
}

export const listUniverses = (key: AuthenticatedKey, { urlParams }: RequestOf<typeof UniversesApi, "list">) =>
  Effect.gen(function* () {
    const limit = yield* pageSize(urlParams.limit, 100, 50)
    const store = yield* Universes
    const page = yield* keysetPage({
      binding: { endpoint: "universes", account: key.account.id, limit },
      cursor: urlParams.cursor,
      limit,
      position: stringPosition,
      keyOf: (u: UniverseRecord) => u.id,
      read: (after, count) => orUnavailable(store.list(key.account.id, count, after))
    })
    return {
      as_of: yield* asOfNow,
      count: page.rows.length,
      next_cursor: page.next_cursor,
      universes: page.rows.map(ownDoc)
    }
  })

export const systemUniverses = () =>
  Effect.gen(function* () {
    const md = yield* marketData
    const snapshot = md.latest
    const day = dayOf(snapshot.asOf)
    const universes = (Object.keys(SYSTEM_UNIVERSES) as Array<SystemId>).map((id) =>
      systemDoc(md, id, day, id !== "top_100")
    )
    return { as_of: isoAsOf(snapshot), count: universes.length, next_cursor: null, universes }
  })

export const getUniverse = (key: AuthenticatedKey, { path }: RequestOf<typeof UniversesApi, "get">) =>
  Effect.gen(function* () {
    if (isSystemId(path.id)) {
      const md = yield* marketData
      const snapshot = md.latest
      return { ...systemDoc(md, path.id, dayOf(snapshot.asOf), true), as_of: isoAsOf(snapshot) }
    }
    if (!SLUG.test(path.id)) return yield* notFound(path.id)
    const store = yield* Universes
    const found = yield* orUnavailable(store.get(key.account.id, path.id))
    if (found === undefined) return yield* notFound(path.id)
    return { ...ownDoc(found), as_of: yield* asOfNow }
  })

export const createUniverse = (key: AuthenticatedKey, { payload }: RequestOf<typeof UniversesApi, "create">) =>
  Effect.gen(function* () {
    const directory = yield* Tickers
    const store = yield* Universes
    yield* checkName(payload.name)
    yield* checkDescription(payload.description)
    if (payload.id !== undefined) {
      if (!SLUG.test(payload.id)) {
        return yield* new BadRequest({
          message: `id must match ^[a-z0-9_]{1,64}$ (lowercase letters, digits, underscore); got ${JSON.stringify(payload.id)}`
        })
      }
      if (isSystemId(payload.id)) {
        return yield* new SlugTaken({
          message: `id ${payload.id} is reserved for a system universe`
        })
      }
    }
    yield* checkSize(payload.tickers, "tickers")
    const tickers = yield* canonicalTickers(directory, payload.tickers, "tickers")
    const input = {
      accountId: key.account.id,
      name: payload.name.trim(),
      description: payload.description ?? null,
      tickers
    }
    if (payload.id !== undefined) {
      const created = yield* orUnavailable(store.create({ ...input, id: payload.id }))
      if (created === "taken") {
        return yield* new SlugTaken({
          message: `this account already has a universe with id ${payload.id}`
        })
      }
      return ownDoc(created)
    }
    const base = slugFromName(payload.name)
    for (let attempt = 1; attempt <= 1000; attempt++) {
      const created = yield* orUnavailable(store.create({ ...input, id: candidate(base, attempt) }))
      if (created !== "taken") return ownDoc(created)
    }
    return yield* new SlugTaken({
      message: `could not generate a free id from the name ${JSON.stringify(payload.name)}; pass an id`
    })
  })

export const updateUniverse = (key: AuthenticatedKey, { path, payload }: RequestOf<typeof UniversesApi, "update">) =>
  Effect.gen(function* () {
    const directory = yield* Tickers
    const store = yield* Universes
    if (isSystemId(path.id)) {
      return yield* new Forbidden({ message: `${path.id} is a system universe and cannot be changed` })
    }
    if (!SLUG.test(path.id)) return yield* notFound(path.id)
    if (payload.tickers !== undefined && (payload.add !== undefined || payload.remove !== undefined)) {
      return yield* new BadRequest({ message: "pass either tickers (replaces the list) or add/remove, not both" })
    }
    if (payload.name !== undefined) yield* checkName(payload.name)
    yield* checkDescription(payload.description)
    // a missing universe is a 404 before any 400 of its tickers; the update itself reads it again, locked
    if ((yield* orUnavailable(store.get(key.account.id, path.id))) === undefined) return yield* notFound(path.id)
    let tickers: ReadonlyArray<string> | TickersEdit<BadRequest | UnknownTickers> | undefined
    if (payload.tickers !== undefined) {
      yield* checkSize(payload.tickers, "tickers")
      tickers = yield* canonicalTickers(directory, payload.tickers, "tickers")
    } else if (payload.add !== undefined || payload.remove !== undefined) {
      // applied by the store to the list as locked in its transaction: concurrent edits all count
      tickers = editTickers(
        yield* canonicalTickers(directory, payload.add ?? [], "add", true),
        yield* canonicalTickers(directory, payload.remove ?? [], "remove", true)
      )
    }
    const updated = yield* orUnavailable(
      store.update(key.account.id, path.id, {
        name: payload.name?.trim(),
        description: payload.description,
        tickers
      })
    )
    if (updated === undefined) return yield* notFound(path.id)
    return ownDoc(updated)
  })

export const deleteUniverse = (key: AuthenticatedKey, { path }: RequestOf<typeof UniversesApi, "delete">) =>
  Effect.gen(function* () {
    if (isSystemId(path.id)) {
      return yield* new Forbidden({ message: `${path.id} is a system universe and cannot be deleted` })
    }
    if (!SLUG.test(path.id)) return yield* notFound(path.id)
    const store = yield* Universes
    const removed = yield* orUnavailable(store.remove(key.account.id, path.id))
    if (!removed) return yield* notFound(path.id)
    return { ok: true as const }
  })
