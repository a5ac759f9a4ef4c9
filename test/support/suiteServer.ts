/** The real service for a vitest suite (test/support/server.ts starts it; this module needs vitest's hooks). */
import { afterAll, beforeAll } from "vitest"
import { type RunningServer, startServer, waitReady } from "./server.js"

/**
 * A service for a describe block: started and ready before its tests, stopped after them.
 * Call the answer inside a test for the running server.
 */
export const serveForSuite = (env: Record<string, string> = {}): (() => RunningServer) => {
  let server: RunningServer | undefined
  beforeAll(async () => {
    server = await startServer(env)
    await waitReady(server)
  }, 120_000)
  afterAll(async () => {
    await server?.stop()
  })
  return () => {
    if (server === undefined) throw new Error("the suite's server has not started")
    return server
  }
}
