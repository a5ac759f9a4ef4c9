/** What the benchmarks read about the service's process from /proc. */
import { readFileSync } from "node:fs"

/** user + system CPU seconds of a /proc `stat` file (clock ticks of 10 ms) */
const statCpuSeconds = (file: string): number => {
  const stat = readFileSync(file, "utf8")
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return (Number(fields[11]) + Number(fields[12])) / 100
}

/** CPU seconds (user + system) a process has used so far, all its threads, from /proc. */
export const cpuSeconds = (pid: number): number => statCpuSeconds(`/proc/${pid}/stat`)

/** CPU seconds (user + system) the main thread of a process (the event loop) has used so far. */
export const mainThreadCpuSeconds = (pid: number): number => statCpuSeconds(`/proc/${pid}/task/${pid}/stat`)

/** Resident memory of a process now and its peak so far, MB (/proc). */
export const rssMb = (pid: number): { readonly now: number; readonly peak: number } => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0)
  return { now: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 }
}

/**
 * Waits until the service is idle (under 5% of a core over 2 s): after
 * `/readyz` it still derives history in the background for a minute or two,
 * which would be measured as request cost otherwise. Returns the seconds waited.
 */
export const quiesce = async (pid: number, timeoutMs = 300_000) => {
  const started = performance.now()
  while (performance.now() - started < timeoutMs) {
    const before = cpuSeconds(pid)
    await new Promise((r) => setTimeout(r, 2_000))
    if (cpuSeconds(pid) - before < 0.1) return (performance.now() - started) / 1000
  }
  return (performance.now() - started) / 1000
}
