/**
 * Worker threads of the service's own modules (src/workerThread.ts): a built module (what `npm start`
 * runs) starts as it is, without tsx's loader in its thread; a TypeScript one (tests, benchmarks)
 * through tsx's API.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { runWorker } from "../src/workerThread.js"

describe("worker threads", () => {
  it.effect("start a JavaScript module as it is, a TypeScript one through tsx", () =>
    Effect.gen(function* () {
      const built = new URL("./support/urlWorker.mjs", import.meta.url)
      expect(yield* runWorker<string>("built", built, undefined)).toBe(built.href)
      const typescript = new URL("./support/urlWorker.ts", import.meta.url)
      const loaded = yield* runWorker<string>("typescript", typescript, undefined)
      // tsx's tsImport loads a module under a namespace of its own, named in the URL's query
      expect(loaded).not.toBe(typescript.href)
      expect(loaded.startsWith(`${typescript.href}?`)).toBe(true)
      expect(loaded).toContain("tsx")
    })
  )
})
