/**
 * The harness's own promise (server.ts): a service started by a test process that exits before
 * stopping it does not outlive that process.
 */
import { spawnSync } from "node:child_process"
import { readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { describe, expect, it } from "vitest"

const ROOT = resolve(import.meta.dirname, "../..")

/** running: neither gone nor a zombie waiting for whoever inherited it to reap it */
const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z"
  } catch {
    return false
  }
}

describe("services started as processes", () => {
  it("are killed when the process that started them exits without stopping them", async () => {
    const dir = tmpdir()
    // a stand-in service: says it listens, then runs until killed
    const service = join(dir, `vigil-fake-service-${process.pid}.mjs`)
    writeFileSync(service, 'console.log("Listening on http://127.0.0.1:1"); setInterval(() => {}, 1000)\n')
    const script = join(dir, `vigil-orphan-${process.pid}.mts`)
    writeFileSync(
      script,
      `import { startServer } from ${JSON.stringify(join(ROOT, "test/support/server.ts"))}
const s = await startServer({}, 10_000, { entry: [${JSON.stringify(service)}] })
console.log("pid", s.process.pid)
throw new Error("the test failed before stop()")
`
    )
    const run = spawnSync(process.execPath, ["--import", "tsx", script], {
      cwd: ROOT,
      encoding: "utf8",
      timeout: 60_000
    })
    rmSync(script)
    rmSync(service)
    expect(run.status, run.stderr).not.toBe(0)
    const pid = Number(/pid (\d+)/.exec(run.stdout)?.[1])
    expect(pid, run.stdout + run.stderr).toBeGreaterThan(0)
    const deadline = Date.now() + 5_000
    while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    expect(alive(pid)).toBe(false)
  }, 90_000)
})
