/**
 * Signals over HTTP: the catalog and custom signals (custom.ts), matches
 * (matches.ts), a ticker's series (series.ts), flag events (events.ts) and
 * daily match counts (stats.ts). Handlers hand the caller and the request on.
 */
import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer } from "effect"
import { VigilApi } from "../Api.js"
import { CurrentKey } from "../middleware/Authentication.js"
import { createSignal, removeSignal, signalCatalog, updateSignal } from "./custom.js"
import { signalEvents } from "./events.js"
import { signalMatches } from "./matches.js"
import { resolveSignal } from "./resolve.js"
import { SignalStats } from "./SignalStats.js"
import { signalSeries } from "./series.js"
import { signalStats } from "./stats.js"

export const SignalsHttpLive = HttpApiBuilder.group(VigilApi, "signals", (handlers) =>
  handlers
    .handle("catalog", ({ urlParams }) => Effect.flatMap(CurrentKey, (key) => signalCatalog(key, urlParams)))
    .handle("create", ({ payload }) => Effect.flatMap(CurrentKey, (key) => createSignal(key, payload)))
    .handle("update", ({ path, payload }) => Effect.flatMap(CurrentKey, (key) => updateSignal(key, path, payload)))
    .handle("remove", ({ path, urlParams }) => Effect.flatMap(CurrentKey, (key) => removeSignal(key, path, urlParams)))
    .handle("matches", ({ path, urlParams }) =>
      Effect.flatMap(CurrentKey, (key) => signalMatches(key, path, urlParams))
    )
    .handle("history", ({ path, urlParams }) => Effect.flatMap(CurrentKey, (key) => signalSeries(key, path, urlParams)))
    .handle("events", signalEvents)
    .handle("stats", (request) => signalStats(request, resolveSignal))
).pipe(Layer.provide(SignalStats.Default))
