/**
 * A test file's CPU, for finding where the suite's time goes (issue 14 item 5): with
 * `VIGIL_TEST_CPU_LOG=<file>` set, vitest runs this before each test file (`setupFiles`), and
 * after the file's last test it appends one line to that file: the test file's path and its
 * process's CPU seconds — user and system time of every thread, plus the children it spawned and
 * reaped (services started as processes). Each file runs in a process of its own (`pool: "forks"`),
 * so a line counts one file, from its process's start (collecting and transforming its modules
 * included). Summarise with `node scripts/test-cpu.mjs <file>`.
 */
import { appendFileSync, readFileSync } from "node:fs"
import { afterAll } from "vitest"

const LOG = process.env.VIGIL_TEST_CPU_LOG

/** seconds of CPU: this process's own (utime, stime) and its reaped children's (cutime, cstime) */
const cpu = () => {
  // the command name (field 2) may hold spaces; the fields after its closing parenthesis are fixed
  const stat = readFileSync("/proc/self/stat", "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  const tick = (i: number) => Number(fields[i - 3]) / 100
  return { own: tick(14) + tick(15), children: tick(16) + tick(17) }
}

if (LOG !== undefined) {
  afterAll(() => {
    const used = cpu()
    const worker = (globalThis as { __vitest_worker__?: { filepath?: string } }).__vitest_worker__
    const file = worker?.filepath ?? "unknown"
    appendFileSync(LOG, `${JSON.stringify({ file, own: used.own, children: used.children })}\n`)
  })
}
