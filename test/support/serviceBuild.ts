/**
 * `npm start`'s build (its `prestart`, scripts/build-server.mjs), which the services started as
 * processes run (server.ts `SERVICE_ENTRY`: plain node over `build/`, as `npm start` does, without
 * tsx's loader in the process and each of its worker threads, ~5 s of CPU a start). As vitest's
 * globalSetup it is made once before the run (the test processes inherit `VIGIL_TEST_BUILT`); a
 * script or benchmark that starts a service makes it on its first start (`ensureServiceBuilt`).
 */
import { spawnSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { startWorkersFromBuild } from "../../src/workerTwins.js"

const ROOT = resolve(import.meta.dirname, "../..")

/** `npm run <name>`'s command in package.json: a `node …` command as words (none of ours quotes anything) */
export const nodeScript = (name: string): Array<string> => {
  const scripts = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts as Record<string, string>
  const [command, ...args] = (scripts[name] ?? "").trim().split(/\s+/)
  if (command !== "node") throw new Error(`package.json's "${name}" is not a node command: ${scripts[name]}`)
  return args
}

/** Makes the build (what `npm start` runs first); its seconds. */
export const buildService = (): number => {
  const started = performance.now()
  const built = spawnSync(process.execPath, nodeScript("prestart"), { cwd: ROOT, encoding: "utf8", timeout: 120_000 })
  if (built.status !== 0) throw new Error(`npm start's build failed:\n${built.stderr}${built.error ?? ""}`)
  return (performance.now() - started) / 1000
}

const made = (): void => {
  buildService()
  process.env.VIGIL_TEST_BUILT = "1"
}

/**
 * When this test run made the build (`VIGIL_TEST_BUILT`), the service's worker threads in this process start
 * from it (src/workerTwins.ts) instead of loading their TypeScript through tsx in each thread. Loads nothing
 * heavy: every test process calls it first (builtWorkers.ts).
 */
export const startWorkersFromRunBuild = (): void => {
  if (process.env.VIGIL_TEST_BUILT === "1") startWorkersFromBuild(join(ROOT, "src"), join(ROOT, "build"))
}

/**
 * vitest's globalSetup: the build, made once for the run (its test processes inherit `VIGIL_TEST_BUILT`);
 * the worker threads the later globalSetups start (pgliteTemplate.ts) start from it.
 */
export default function serviceBuild(): void {
  made()
  startWorkersFromRunBuild()
}

/** Makes the build unless this process, or the test run it belongs to, has made it. */
export const ensureServiceBuilt = (): void => {
  if (process.env.VIGIL_TEST_BUILT !== "1") made()
}
