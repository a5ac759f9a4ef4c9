// Summarises a `VIGIL_TEST_CPU_LOG` file (test/support/cpuPerFile.ts): CPU seconds per test file, dearest first,
// with the totals and each folder's share. Usage: node scripts/test-cpu.mjs <log> [--top=N]
import { readFileSync } from "node:fs"
import { relative } from "node:path"

const [log, ...flags] = process.argv.slice(2)
if (log === undefined) {
  console.error("usage: node scripts/test-cpu.mjs <log> [--top=N]")
  process.exit(2)
}
const top = Number(flags.find((f) => f.startsWith("--top="))?.slice(6) ?? 30)
const rows = readFileSync(log, "utf8")
  .split("\n")
  .filter((l) => l.trim() !== "")
  .map((l) => JSON.parse(l))
  .map((r) => ({ file: relative(process.cwd(), r.file), own: r.own, children: r.children, all: r.own + r.children }))
  .sort((a, b) => b.all - a.all)
const sum = (key) => rows.reduce((a, r) => a + r[key], 0)
const total = sum("all")
const s = (x) => x.toFixed(1).padStart(7)
console.log(
  `${rows.length} files, ${total.toFixed(0)} s of CPU (own ${sum("own").toFixed(0)} s, children ${sum("children").toFixed(0)} s)`
)
const folders = new Map()
for (const r of rows) {
  const folder = r.file.split("/").slice(0, 2).join("/")
  folders.set(folder, (folders.get(folder) ?? 0) + r.all)
}
console.log("\nby folder:")
for (const [f, v] of [...folders].sort((a, b) => b[1] - a[1]))
  console.log(`${s(v)} s ${((100 * v) / total).toFixed(1).padStart(5)}%  ${f}`)
console.log(`\ndearest ${top} files (all = own + children):`)
for (const r of rows.slice(0, top)) console.log(`${s(r.all)} s (own ${s(r.own)}, children ${s(r.children)})  ${r.file}`)
