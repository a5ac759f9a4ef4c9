/** The service for a vitest suite, in the test's process (inProcess.ts; this module needs vitest's hooks). */
import { afterAll, beforeAll } from "vitest"
import { SAMPLE, type Service, type ServiceOptions, startService } from "./inProcess.js"
import { waitReady } from "./server.js"

/**
 * A service for a describe block: started and ready before its tests (and before the block's own
 * `beforeAll` hooks, declared after this call), stopped after them. The answer reads the running
 * service: use it inside hooks and tests, as the service itself.
 */
export const serveForSuite = (env: Record<string, string> = {}, options: ServiceOptions = SAMPLE): Service => {
  let running: Service | undefined
  beforeAll(async () => {
    running = await startService(env, options)
    await waitReady(running, 120_000)
  }, 180_000)
  afterAll(async () => {
    await running?.stop()
  })
  const current = (): Service => {
    if (running === undefined) throw new Error("the suite's service has not started")
    return running
  }
  return {
    get url() {
      return current().url
    },
    get dataDir() {
      return current().dataDir
    },
    logs: () => current().logs(),
    running: () => current().running(),
    setOffset: (ms) => current().setOffset(ms),
    stop: () => current().stop()
  }
}
