/**
 * `npm start`: its `prestart` builds `src/` into `build/` (scripts/build-server.mjs), and the
 * service runs from the build under plain node, its worker threads too (src/workerThread.ts).
 */
import { spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, relative, resolve } from "node:path"
import { describe, expect, it } from "vitest"
import { startServer, waitReady } from "./support/server.js"
import { nodeScript } from "./support/serviceBuild.js"

const ROOT = resolve(import.meta.dirname, "..")
const SRC = join(ROOT, "src")
/** runs `npm run <name>`'s command (node …) in the repository; with `args` after its own */
const runScript = (name: string, args: ReadonlyArray<string> = []) =>
  spawnSync(process.execPath, [...nodeScript(name), ...args], { cwd: ROOT, encoding: "utf8", timeout: 60_000 })

const modules = readdirSync(SRC, { recursive: true, encoding: "utf8" }).filter(
  (f) => f.endsWith(".ts") && !f.endsWith(".d.ts")
)

describe("npm start", () => {
  it("builds every module of src/, with source maps back to it, rewriting only what changed and removing what has no module", () => {
    const out = mkdtempSync(join(tmpdir(), "vigil-build-"))
    try {
      const first = runScript("prestart", [out])
      expect(first.status, first.stderr).toBe(0)
      expect(first.stderr).toContain(`${modules.length} modules of src/`)
      for (const m of modules) {
        const built = join(out, m.replace(/\.ts$/, ".js"))
        expect(existsSync(built), built).toBe(true)
        expect(readFileSync(built, "utf8")).toContain(`//# sourceMappingURL=`)
      }
      const map = JSON.parse(readFileSync(join(out, "workerThread.js.map"), "utf8"))
      expect(map.sources.map((s: string) => resolve(out, s))).toEqual([join(SRC, "workerThread.ts")])

      const stale = join(out, "market", "gone.js")
      writeFileSync(stale, "export {}\n")
      const before = statSync(join(out, "main.js")).mtimeMs
      const second = runScript("prestart", [out])
      expect(second.status, second.stderr).toBe(0)
      expect(second.stderr).toContain("0 files written, 1 removed")
      expect(existsSync(stale)).toBe(false)
      expect(statSync(join(out, "main.js")).mtimeMs).toBe(before)

      const third = runScript("prestart", [out])
      expect(third.status).toBe(0)
      expect(third.stderr).toBe("")
    } finally {
      rmSync(out, { recursive: true, force: true })
    }
  }, 120_000)

  it("serves from the build under plain node, its database's worker thread a built module, and stops on SIGTERM", async () => {
    const built = runScript("prestart")
    expect(built.status, built.stderr).toBe(0)
    // nodeScript refuses a start script that is not a node command
    const entry = nodeScript("start")
    expect(entry.at(-1)).toBe("build/main.js")
    expect(relative(ROOT, join(ROOT, "build", "main.js"))).toBe(entry.at(-1))
    // the embedded database runs in a worker thread: ready means that thread loaded its built module
    const server = await startServer({ HISTORY_DAYS: "30" }, 60_000, { entry })
    try {
      await waitReady(server, 90_000)
      const res = await fetch(`${server.url}/healthz`)
      expect(res.status).toBe(200)
      expect(server.logs()).not.toMatch(/tsx|ERR_|Error/)
    } finally {
      const started = Date.now()
      expect(await server.stop()).toBe(0)
      expect(Date.now() - started).toBeLessThan(10_000)
    }
  }, 180_000)
})
