/**
 * The process's own gauges, in the names Prometheus' Node.js clients use
 * (prom-client's defaults), read when `/metrics` is scraped: resident memory,
 * CPU time, and the V8 heap by space (used and committed), so an operator sees
 * what a process holds and how much of it the garbage collector keeps spare.
 */
import { getHeapSpaceStatistics } from "node:v8"

/** one metric family: its samples as [labels ("" or `{…}`), value] */
const family = (
  name: string,
  type: "gauge" | "counter",
  help: string,
  samples: ReadonlyArray<readonly [string, number]>
): string =>
  [`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, ...samples.map(([l, v]) => `${name}${l} ${v}`)].join("\n")

export const processMetricsText = (): string => {
  const memory = process.memoryUsage()
  const cpu = process.cpuUsage()
  const spaces = getHeapSpaceStatistics()
  const bySpace = (pick: (s: (typeof spaces)[number]) => number) =>
    spaces.map((s) => [`{space="${s.space_name.replace(/_space$/, "")}"}`, pick(s)] as const)
  return `${[
    family("process_resident_memory_bytes", "gauge", "Resident memory size in bytes", [["", memory.rss]]),
    family("process_cpu_user_seconds_total", "counter", "User CPU time spent in seconds", [["", cpu.user / 1e6]]),
    family("process_cpu_system_seconds_total", "counter", "System CPU time spent in seconds", [["", cpu.system / 1e6]]),
    family("nodejs_heap_size_total_bytes", "gauge", "V8 heap committed, in bytes", [["", memory.heapTotal]]),
    family("nodejs_heap_size_used_bytes", "gauge", "V8 heap in use, in bytes", [["", memory.heapUsed]]),
    family(
      "nodejs_external_memory_bytes",
      "gauge",
      "Memory of C++ objects bound to JavaScript (typed arrays' data included), in bytes",
      [["", memory.external]]
    ),
    family(
      "nodejs_heap_space_size_total_bytes",
      "gauge",
      "V8 heap committed per space, in bytes",
      bySpace((s) => s.space_size)
    ),
    family(
      "nodejs_heap_space_size_used_bytes",
      "gauge",
      "V8 heap in use per space, in bytes",
      bySpace((s) => s.space_used_size)
    )
  ].join("\n")}\n`
}
