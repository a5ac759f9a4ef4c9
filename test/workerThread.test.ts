/**
 * Worker threads of the service's own modules (src/workerThread.ts): a built module (what `npm start`
 * runs) starts as it is, without tsx's loader in its thread; a TypeScript one (tests, benchmarks)
 * through tsx's API.
 */
import { copyFileSync } from "node:fs"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { runWorker } from "../src/workerThread.js"
import { startWorkersFromBuild } from "../src/workerTwins.js"
import { scopedTempDir } from "./support/tempDir.js"

describe("worker threads", () => {
  // the run's setup (builtWorkers.ts) points workers at src/'s build: a module outside src/ keeps tsx
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

  // last: it leaves this process's workers pointed at the folders it gives
  it.effect(
    "start a TypeScript module from its built twin once told where the build is, through tsx while it has none",
    () =>
      Effect.gen(function* () {
        const build = yield* scopedTempDir("vigil-twins-")
        startWorkersFromBuild(join(import.meta.dirname, "support"), build)
        const typescript = new URL("./support/urlWorker.ts", import.meta.url)
        expect(yield* runWorker<string>("no twin yet", typescript, undefined)).toContain("tsx")
        copyFileSync(new URL("./support/urlWorker.mjs", import.meta.url), join(build, "urlWorker.js"))
        expect(yield* runWorker<string>("twin", typescript, undefined)).toBe(
          pathToFileURL(join(build, "urlWorker.js")).href
        )
      }).pipe(Effect.scoped)
  )
})
