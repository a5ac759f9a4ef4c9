/**
 * vitest setup file (every test file's process): the service's worker threads start from `npm start`'s
 * build, which this run made before any test (globalSetup serviceBuild.ts, `VIGIL_TEST_BUILT`), instead
 * of loading their TypeScript through tsx in each thread (src/workerThread.ts `startWorkersFromBuild`):
 * opening an embedded database costs ~2 s of CPU less each time. Runs that did not make the build
 * (a script, a benchmark) keep tsx.
 */
import { join, resolve } from "node:path"
import { startWorkersFromBuild } from "../../src/workerTwins.js"

const ROOT = resolve(import.meta.dirname, "../..")

if (process.env.VIGIL_TEST_BUILT === "1") startWorkersFromBuild(join(ROOT, "src"), join(ROOT, "build"))
