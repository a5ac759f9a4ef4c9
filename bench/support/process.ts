/** What the benchmarks read about the service's process from /proc. */
import { readdirSync, readFileSync } from "node:fs"

/** The fields of a /proc `stat` file after the command name (the state is field 0). */
const statFields = (file: string): ReadonlyArray<string> => {
  const stat = readFileSync(file, "utf8")
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")
}

/** user and system CPU seconds of a /proc `stat` file (clock ticks of 10 ms) */
const statUserSystem = (file: string): readonly [number, number] => {
  const fields = statFields(file)
  return [Number(fields[11]) / 100, Number(fields[12]) / 100]
}

/** user + system CPU seconds of a /proc `stat` file */
const statCpuSeconds = (file: string): number => {
  const [user, system] = statUserSystem(file)
  return user + system
}

/** CPU seconds (user + system) a process has used so far, all its threads, from /proc. */
export const cpuSeconds = (pid: number): number => statCpuSeconds(`/proc/${pid}/stat`)

/** CPU seconds (user + system) of a process's children that have exited and been waited for (`cutime` + `cstime`). */
export const reapedChildrenCpuSeconds = (pid: number): number => {
  const fields = statFields(`/proc/${pid}/stat`)
  return (Number(fields[13]) + Number(fields[14])) / 100
}

/** CPU seconds (user + system) the main thread of a process (the event loop) has used so far. */
export const mainThreadCpuSeconds = (pid: number): number => statCpuSeconds(`/proc/${pid}/task/${pid}/stat`)

/**
 * CPU seconds (user, system) a process has used so far by thread name (`/proc/<pid>/task/<tid>/comm`):
 * the event loop is the thread named after the process (`node`, or `MainThread`), V8's helpers
 * `V8 DefaultWorke…`, libuv's pool `libuv-worker`; threads that have exited are not counted.
 */
export const threadCpuSeconds = (pid: number): Map<string, readonly [number, number]> => {
  const out = new Map<string, readonly [number, number]>()
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = tid === String(pid) ? "main" : readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim()
      const [user, system] = statUserSystem(`/proc/${pid}/task/${tid}/stat`)
      const sum = out.get(name) ?? [0, 0]
      out.set(name, [sum[0] + user, sum[1] + system])
    } catch {
      // the thread exited between the listing and the read
    }
  }
  return out
}

/**
 * What each thread name used between two `threadCpuSeconds` readings, in ms per `per`, largest
 * first, with the system time's part.
 */
export const threadCpuMsPer = (
  before: Map<string, readonly [number, number]>,
  after: Map<string, readonly [number, number]>,
  per: number
): string => {
  const scale = 1000 / Math.max(1, per)
  return [...after]
    .map(([name, [user, system]]) => {
      const [user0, system0] = before.get(name) ?? [0, 0]
      return [name, (user - user0 + system - system0) * scale, (system - system0) * scale] as const
    })
    .filter(([, ms]) => ms >= 0.0005)
    .sort((a, b) => b[1] - a[1])
    .map(([name, ms, sys]) => `${name} ${ms.toFixed(3)} (sys ${sys.toFixed(3)})`)
    .join(", ")
}

/** Minor page faults of a process so far (all its threads), from /proc. */
export const minorFaults = (pid: number): number => Number(statFields(`/proc/${pid}/stat`)[7])

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

/**
 * The machine's CPU time so far (all cores, seconds) and the part of it stolen by the hypervisor
 * (`/proc/stat`'s `steal`): on a virtual machine a neighbour's load shows here, and a throughput
 * measured meanwhile is not the machine's.
 */
export const machineCpu = (): { readonly total: number; readonly steal: number } => {
  const fields = readFileSync("/proc/stat", "utf8").split("\n", 1)[0]!.trim().split(/\s+/).slice(1).map(Number)
  // user nice system idle iowait irq softirq steal (guest time is counted in user already)
  const total = fields.slice(0, 8).reduce((a, b) => a + b, 0)
  return { total: total / 100, steal: (fields[7] ?? 0) / 100 }
}

/** The share of the machine's CPU stolen between two readings of `machineCpu`, in percent. */
export const stealPercent = (before: ReturnType<typeof machineCpu>, after: ReturnType<typeof machineCpu>): number =>
  (100 * (after.steal - before.steal)) / Math.max(0.01, after.total - before.total)
