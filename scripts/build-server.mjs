/**
 * `npm start`'s build (its `prestart`): every module of `src/` transpiled by
 * esbuild, one file each, into `build/` beside it (the same folders, so paths
 * a module resolves from its own URL, such as `../../../data/tickers.json`,
 * hold), with source maps that point back at `src/`. The service then runs
 * under plain `node`: no TypeScript loader thread in the process, nor in each
 * of its worker threads (`src/workerThread.ts` starts a built module as it
 * is). Under tsx the same service held ~170 MB more at ready
 * (docs/benchmarks.md).
 *
 * Safe beside a running service started from the same folder (two roles
 * started one after the other, say): a file is replaced by a rename, never
 * truncated in place, and only when its text changed; files whose module is
 * gone are removed. Takes well under a second.
 *
 * `node scripts/build-server.mjs [outdir]` (default `build`, relative to the
 * repository).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "esbuild"

const root = fileURLToPath(new URL("..", import.meta.url))
const src = join(root, "src")
const out = resolve(root, process.argv[2] ?? "build")

const modules = readdirSync(src, { recursive: true, encoding: "utf8" })
  .filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts"))
  .map((f) => join(src, f))

const result = await build({
  entryPoints: modules,
  outdir: out,
  outbase: src,
  format: "esm",
  platform: "node",
  target: "node20",
  sourcemap: true,
  tsconfig: join(root, "tsconfig.json"),
  write: false,
  logLevel: "warning"
})

const wanted = new Set()
let written = 0
for (const file of result.outputFiles) {
  wanted.add(file.path)
  if (existsSync(file.path) && readFileSync(file.path).equals(file.contents)) continue
  mkdirSync(dirname(file.path), { recursive: true })
  const temporary = `${file.path}.${process.pid}.tmp`
  writeFileSync(temporary, file.contents)
  renameSync(temporary, file.path)
  written++
}

let removed = 0
for (const f of readdirSync(out, { recursive: true, encoding: "utf8" })) {
  const path = join(out, f)
  if ((f.endsWith(".js") || f.endsWith(".js.map")) && !wanted.has(path)) {
    rmSync(path, { force: true })
    removed++
  }
}

if (written > 0 || removed > 0) {
  process.stderr.write(
    `build: ${modules.length} modules of src/ into ${relative(root, out) || "."}/ (${written} files written, ${removed} removed)\n`
  )
}
