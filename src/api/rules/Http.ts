/** The rules group over HTTP (saved.ts holds the logic). */
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { VigilApi } from "../Api.js"
import { CurrentKey } from "../middleware/Authentication.js"
import { createRule, deleteRule, getRule, listRules, updateRule } from "./saved.js"

export const RulesHttpLive = HttpApiBuilder.group(VigilApi, "rules", (handlers) =>
  handlers
    .handle("list", (request) => Effect.flatMap(CurrentKey, (key) => listRules(key, request)))
    .handle("create", (request) => Effect.flatMap(CurrentKey, (key) => createRule(key, request)))
    .handle("get", (request) => Effect.flatMap(CurrentKey, (key) => getRule(key, request)))
    .handle("update", (request) => Effect.flatMap(CurrentKey, (key) => updateRule(key, request)))
    .handle("delete", (request) => Effect.flatMap(CurrentKey, (key) => deleteRule(key, request)))
)
