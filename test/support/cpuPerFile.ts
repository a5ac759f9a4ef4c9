/**
 * A test file's CPU, for finding where the suite's time goes (issue 14 item 5): with
 * `VIGIL_TEST_CPU_LOG=<file>` set, vitest runs this before each test file (`setupFiles`, see
 * vitest.config.ts), and after the file's last test it appends one line to that file: the test
 * file's path and its process's CPU seconds — user and system time of every thread, plus the
 * children it spawned and reaped (services started as processes). Each file runs in a process of
 * its own (`pool: "forks"`), so a line counts one file, from its process's start (collecting and
 * transforming its modules included). Summarise with `node scripts/test-cpu.mjs <file>`.
 */
import { appendFileSync } from "node:fs"
import { afterAll } from "vitest"
import { cpuSeconds, reapedChildrenCpuSeconds } from "../../bench/support/process.js"

afterAll(() => {
  const worker = (globalThis as { __vitest_worker__?: { filepath?: string } }).__vitest_worker__
  const line = {
    file: worker?.filepath ?? "unknown",
    own: cpuSeconds(process.pid),
    children: reapedChildrenCpuSeconds(process.pid)
  }
  appendFileSync(process.env.VIGIL_TEST_CPU_LOG!, `${JSON.stringify(line)}\n`)
})
