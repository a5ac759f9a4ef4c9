/**
 * The files an `import` names: files as given, a directory's files (not its subdirectories nor
 * hidden files, sorted by name), and globs (`*`, `?`, `[…]` within a name, `**` for any depth;
 * matches sorted by path) — for a shell that did not expand them, or a pattern quoted to pass it
 * whole. Each file once, in the order named.
 */
import { closeSync, openSync, readdirSync, readSync, statSync } from "node:fs"
import { join } from "node:path"

const MAGIC = /[*?[]/

/** A glob segment (no `/`) as a regular expression over one name. */
export const segmentPattern = (segment: string): RegExp => {
  let out = ""
  for (let i = 0; i < segment.length; i++) {
    const c = segment[i]
    if (c === "*") out += "[^/]*"
    else if (c === "?") out += "[^/]"
    else if (c === "[") {
      const close = segment.indexOf("]", i + 2)
      if (close < 0) out += "\\["
      else {
        const body = segment.slice(i + 1, close)
        out += `[${body.startsWith("!") ? `^${body.slice(1)}` : body.replace(/\\/g, "\\\\")}]`
        i = close
      }
    } else out += c.replace(/[.+^${}()|\\]/g, "\\$&")
  }
  return new RegExp(`^${out}$`)
}

const entries = (dir: string) => {
  try {
    return readdirSync(dir, { withFileTypes: true })
  } catch {
    return []
  }
}

/** The files a glob matches, sorted. */
export const expandGlob = (pattern: string): Array<string> => {
  const absolute = pattern.startsWith("/")
  const segments = pattern.split("/").filter((s) => s !== "")
  const out: Array<string> = []
  const walk = (dir: string, shown: string, k: number) => {
    if (k === segments.length) return
    const segment = segments[k]
    const last = k === segments.length - 1
    if (segment === "**") {
      walk(dir, shown, k + 1)
      for (const e of entries(dir)) {
        if (e.isDirectory() && !e.name.startsWith(".")) walk(join(dir, e.name), join(shown, e.name), k)
      }
      return
    }
    if (!MAGIC.test(segment)) {
      const path = join(dir, segment)
      if (last) {
        if (statSync(path, { throwIfNoEntry: false })?.isFile()) out.push(join(shown, segment))
      } else walk(path, join(shown, segment), k + 1)
      return
    }
    const re = segmentPattern(segment)
    for (const e of entries(dir)) {
      if (!re.test(e.name) || (e.name.startsWith(".") && !segment.startsWith("."))) continue
      const path = join(dir, e.name)
      const isFile = e.isFile() || (e.isSymbolicLink() && statSync(path, { throwIfNoEntry: false })?.isFile())
      if (last) {
        if (isFile) out.push(join(shown, e.name))
      } else if (e.isDirectory() || statSync(path, { throwIfNoEntry: false })?.isDirectory()) {
        walk(path, join(shown, e.name), k + 1)
      }
    }
  }
  walk(absolute ? "/" : ".", absolute ? "/" : "", 0)
  return [...new Set(out)].sort()
}

/** Every file `args` name, in order, each once; an argument naming nothing is an error. */
export const importPaths = (args: ReadonlyArray<string>): Array<string> => {
  const out: Array<string> = []
  const seen = new Set<string>()
  const add = (file: string) => {
    if (!seen.has(file)) {
      seen.add(file)
      out.push(file)
    }
  }
  for (const arg of args) {
    const stat = statSync(arg, { throwIfNoEntry: false })
    if (stat?.isDirectory()) {
      const names = entries(arg)
        .filter((e) => !e.name.startsWith(".") && (e.isFile() || statSync(join(arg, e.name)).isFile()))
        .map((e) => e.name)
        .sort()
      if (names.length === 0) throw new Error(`${arg}: the directory holds no file`)
      for (const name of names) add(join(arg, name))
    } else if (stat?.isFile()) add(arg)
    else if (MAGIC.test(arg)) {
      const matches = expandGlob(arg)
      if (matches.length === 0) throw new Error(`${arg}: no file matches`)
      for (const m of matches) add(m)
    } else throw new Error(`cannot read ${arg}`)
  }
  return out
}

/** A `.gz` file, or one that starts with gzip's magic number. */
export const isGzipFile = (file: string): boolean => {
  if (file.toLowerCase().endsWith(".gz")) return true
  let fd: number
  try {
    fd = openSync(file, "r")
  } catch {
    return false // reading it says why
  }
  try {
    const head = Buffer.alloc(2)
    return readSync(fd, head, 0, 2, 0) === 2 && head[0] === 0x1f && head[1] === 0x8b
  } finally {
    closeSync(fd)
  }
}
