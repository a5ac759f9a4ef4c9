/**
 * Saved rules (named scans): list, read, create, update and delete, each validated as the scan it
 * stands for (q compiled for the account, order, dir, fields, the universe existing).
 */
import { randomBytes } from "node:crypto"
import { Effect } from "effect"
import type { Account, AuthenticatedKey } from "../../accounts/Accounts.js"
import { Tickers } from "../../market/tickers/index.js"
import { type RuleParams, type RuleRecord, Rules } from "../../store/rules.js"
import { nowIso } from "../common/clock.js"
import { compileFor } from "../common/compile.js"
import { pageSize } from "../common/params.js"
import type { RequestOf } from "../common/request.js"
import { keysetPage, stringPosition } from "../cursor.js"
import { BadRequest, InvalidQuery, NotFound, orUnavailable } from "../errors.js"
import { DEFAULT_DIR, DEFAULT_ORDER, MAX_Q_LENGTH, validateDir, validateFields, validateOrder } from "../scan/params.js"
import { lookupUniverse } from "../universes/resolve.js"
import { MAX_RULE_NAME_LENGTH, type RulesApi } from "./Api.js"

const RULE_ID = /^rule_[A-Za-z0-9_-]{1,64}$/

const notFound = (id: string) => new NotFound({ message: `rule ${JSON.stringify(id)} not found` })

const toDoc = (r: RuleRecord) => ({
  id: r.id,
  name: r.name,
  q: r.q,
  universe: r.universe,
  order: r.order,
  dir: r.dir,
  fields: [...r.fields],
  created_at: r.createdAt,
  updated_at: r.updatedAt
})

interface Draft {
  readonly name: string
  readonly q: string
  readonly universe: string | null
  readonly order: string
  readonly dir: string
  readonly fields: string | ReadonlyArray<string>
}

/** Validates a rule's parameters as a scan would (q compiled for the account, universe existing). */
const validate = (account: Account, draft: Draft, checkUniverse = true) =>
  Effect.gen(function* () {
    const name = draft.name.trim()
    if (name.length === 0 || draft.name.length > MAX_RULE_NAME_LENGTH) {
      return yield* new BadRequest({ message: `name must be 1 to ${MAX_RULE_NAME_LENGTH} characters and not blank` })
    }
    if (draft.q.trim() === "") return yield* new BadRequest({ message: "q is required" })
    if (draft.q.length > MAX_Q_LENGTH) {
      return yield* new InvalidQuery({
        message: `q is ${draft.q.length} characters; at most ${MAX_Q_LENGTH} are allowed`
      })
    }
    yield* compileFor(draft.q, yield* Tickers, account)
    const order = yield* validateOrder(draft.order)
    const dir = yield* validateDir(draft.dir)
    const fields = yield* validateFields(draft.fields)
    if (checkUniverse && draft.universe !== null) yield* lookupUniverse(account.id, draft.universe)
    return { name, q: draft.q, universe: draft.universe, order, dir, fields } satisfies RuleParams
  })

export const listRules = (key: AuthenticatedKey, { urlParams }: RequestOf<typeof RulesApi, "list">) =>
  Effect.gen(function* () {
    const limit = yield* pageSize(urlParams.limit, 100, 50)
    const rules = yield* Rules
    const page = yield* keysetPage({
      binding: { endpoint: "rules", account: key.account.id, limit },
      cursor: urlParams.cursor,
      limit,
      position: stringPosition,
      keyOf: (r: RuleRecord) => r.id,
      read: (after, count) => orUnavailable(rules.list(key.account.id, count, after))
    })
    return {
      as_of: yield* nowIso,
      count: page.rows.length,
      next_cursor: page.next_cursor,
      rules: page.rows.map(toDoc)
    }
  })

export const createRule = (key: AuthenticatedKey, { payload }: RequestOf<typeof RulesApi, "create">) =>
  Effect.gen(function* () {
    const params = yield* validate(key.account, {
      name: payload.name,
      q: payload.q,
      universe: payload.universe ?? null,
      order: payload.order ?? DEFAULT_ORDER,
      dir: payload.dir ?? DEFAULT_DIR,
      fields: payload.fields ?? []
    })
    const id = `rule_${randomBytes(12).toString("base64url")}`
    return toDoc(yield* orUnavailable((yield* Rules).create(key.account.id, id, params)))
  })

export const getRule = (key: AuthenticatedKey, { path }: RequestOf<typeof RulesApi, "get">) =>
  Effect.gen(function* () {
    if (!RULE_ID.test(path.id)) return yield* notFound(path.id)
    const found = yield* orUnavailable((yield* Rules).get(key.account.id, path.id))
    if (found === undefined) return yield* notFound(path.id)
    return toDoc(found)
  })

export const updateRule = (key: AuthenticatedKey, { path, payload }: RequestOf<typeof RulesApi, "update">) =>
  Effect.gen(function* () {
    if (!RULE_ID.test(path.id)) return yield* notFound(path.id)
    const store = yield* Rules
    // merged with and validated against the rule as locked in the transaction that writes it
    const updated = yield* orUnavailable(
      store.update(key.account.id, path.id, (current) =>
        validate(
          key.account,
          {
            name: payload.name ?? current.name,
            q: payload.q ?? current.q,
            universe: payload.universe === undefined ? current.universe : payload.universe,
            order: payload.order ?? current.order,
            dir: payload.dir ?? current.dir,
            fields: payload.fields ?? current.fields
          },
          payload.universe !== undefined
        )
      )
    )
    if (updated === undefined) return yield* notFound(path.id)
    return toDoc(updated)
  })

export const deleteRule = (key: AuthenticatedKey, { path }: RequestOf<typeof RulesApi, "delete">) =>
  Effect.gen(function* () {
    if (!RULE_ID.test(path.id)) return yield* notFound(path.id)
    const removed = yield* orUnavailable((yield* Rules).remove(key.account.id, path.id))
    if (!removed) return yield* notFound(path.id)
    return { ok: true as const }
  })
