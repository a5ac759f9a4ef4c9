/** The universes group over HTTP (own.ts holds the rules). */
import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { VigilApi } from "../Api.js"
import { CurrentKey } from "../middleware/Authentication.js"
import { createUniverse, deleteUniverse, getUniverse, listUniverses, systemUniverses, updateUniverse } from "./own.js"

export const UniversesHttpLive = HttpApiBuilder.group(VigilApi, "universes", (handlers) =>
  handlers
    .handle("list", (request) => Effect.flatMap(CurrentKey, (key) => listUniverses(key, request)))
    .handle("system", () => systemUniverses())
    .handle("get", (request) => Effect.flatMap(CurrentKey, (key) => getUniverse(key, request)))
    .handle("create", (request) => Effect.flatMap(CurrentKey, (key) => createUniverse(key, request)))
    .handle("update", (request) => Effect.flatMap(CurrentKey, (key) => updateUniverse(key, request)))
    .handle("delete", (request) => Effect.flatMap(CurrentKey, (key) => deleteUniverse(key, request)))
)
