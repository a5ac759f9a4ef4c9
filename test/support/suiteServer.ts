/** The service for a vitest suite, in the test's process (inProcess.ts; this module needs vitest's hooks). */
import { afterAll, beforeAll } from "vitest"
import { SAMPLE, type Service, type ServiceOptions, startService } from "./inProcess.js"
import { waitReady } from "./server.js"

/**
 * A service for a describe block: started and ready before its tests, stopped after them.
 * Call the answer inside a test for the running service.
 */
export const serveForSuite = (env: Record<string, string> = {}, options: ServiceOptions = SAMPLE): (() => Service) => {
  let server: Service | undefined
  beforeAll(async () => {
    server = await startService(env, options)
    await waitReady(server)
  }, 120_000)
  afterAll(async () => {
    await server?.stop()
  })
  return () => {
    if (server === undefined) throw new Error("the suite's service has not started")
    return server
  }
}
