/**
 * The arrows of docs/architecture.md, read from the imports of `src/`: no module imports itself
 * back through others (a cycle makes what a module sees at load depend on who loaded first), only
 * the modules at the root of `src/` import `api`, and `delivery` imports neither `alerts` nor `api`
 * (alerts → delivery, one way), and `market` imports no `store` module (its ports,
 * `src/market/ports.ts`, are implemented in `store`).
 */
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { describe, expect, it } from "vitest"

const SRC = resolve(import.meta.dirname, "../src")

const sources = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []
  )

/** a file's unit: its top folder under src, or the file itself at the root */
const unitOf = (file: string): string => {
  const parts = relative(SRC, file).split("/")
  return parts.length > 1 ? parts[0]! : parts[0]!.replace(/\.ts$/, "")
}

interface Import {
  /** the imported module, as a path under src */
  readonly path: string
  /** `import type` / `export type`: erased when compiled, no arrow at run time */
  readonly typeOnly: boolean
}

const STATEMENT = /(?:^|\n)\s*(?:import|export)(\s+type)?\b[^"]*?from\s*"(\.{1,2}\/[^"]+)"/g

/** each module's relative imports */
const imports = (): Map<string, Array<Import>> =>
  new Map(
    sources(SRC).map((file) => [
      relative(SRC, file),
      [...readFileSync(file, "utf8").matchAll(STATEMENT)].map((m) => ({
        path: relative(SRC, resolve(dirname(file), m[2]!.replace(/\.js$/, ".ts"))),
        typeOnly: m[1] !== undefined
      }))
    ])
  )

/** unit → units it imports, with one importing file per arrow */
const graph = (modules: Map<string, Array<Import>>): Map<string, Map<string, string>> => {
  const edges = new Map<string, Map<string, string>>()
  for (const [file, targets] of modules) {
    const from = unitOf(join(SRC, file))
    const out = edges.get(from) ?? new Map<string, string>()
    edges.set(from, out)
    for (const target of targets) {
      const to = unitOf(join(SRC, target.path))
      if (to !== from && !out.has(to)) out.set(to, file)
    }
  }
  return edges
}

describe("the arrows between modules and folders", () => {
  const modules = imports()
  const edges = graph(modules)

  it("reads the folders", () => {
    expect([...edges.keys()]).toEqual(expect.arrayContaining(["api", "alerts", "delivery", "store", "market", "query"]))
  })

  it("have no cycle between modules at run time", () => {
    const cycles: Array<string> = []
    const state = new Map<string, "open" | "done">()
    const visit = (file: string, path: Array<string>) => {
      if (state.get(file) === "done") return
      if (state.get(file) === "open") {
        cycles.push([...path.slice(path.indexOf(file)), file].join(" → "))
        return
      }
      state.set(file, "open")
      for (const next of modules.get(file) ?? []) {
        if (!next.typeOnly && modules.has(next.path)) visit(next.path, [...path, file])
      }
      state.set(file, "done")
    }
    for (const file of modules.keys()) visit(file, [])
    expect(cycles).toEqual([])
  })

  it("lead into api only from the root modules", () => {
    const intoApi = [...edges].filter(([from, to]) => to.has("api") && edges.has(from) && from !== "api")
    const folders = new Set(
      sources(SRC)
        .filter((f) => relative(SRC, f).includes("/"))
        .map(unitOf)
    )
    expect(intoApi.filter(([from]) => folders.has(from)).map(([from, to]) => `${from} (${to.get("api")})`)).toEqual([])
  })

  it("go from alerts to delivery, never back", () => {
    const back = ["alerts", "api"].filter((u) => edges.get("delivery")?.has(u))
    expect(back.map((u) => `delivery → ${u} (${edges.get("delivery")!.get(u)})`)).toEqual([])
    expect(edges.get("alerts")?.has("delivery")).toBe(true)
  })

  it("keep the market free of the store: store implements the market's ports", () => {
    const intoStore = [...modules]
      .filter(([file]) => unitOf(join(SRC, file)) === "market")
      .flatMap(([file, targets]) =>
        targets.filter((t) => unitOf(join(SRC, t.path)) === "store").map((t) => `${file} → ${t.path}`)
      )
    expect(intoStore).toEqual([])
    expect(edges.get("store")?.has("market")).toBe(true)
  })
})
