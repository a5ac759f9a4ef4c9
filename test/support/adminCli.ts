/** `npm run admin -- <args>` as node runs it (tsx by its path: the working directory may be anywhere). */
import { spawn } from "node:child_process"
import { join, resolve } from "node:path"
import { pathToFileURL } from "node:url"

export const ROOT = resolve(import.meta.dirname, "../..")

/** runs the admin CLI with `env` over this process's (a variable given as undefined is left out), in `cwd` */
export const runAdminCli = (args: ReadonlyArray<string>, env: Record<string, string | undefined>, cwd = ROOT) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
    const tsx = pathToFileURL(join(ROOT, "node_modules/tsx/dist/loader.mjs")).href
    const child = spawn(process.execPath, ["--import", tsx, join(ROOT, "src/admin/cli.ts"), ...args], {
      cwd,
      env: Object.fromEntries(Object.entries({ ...process.env, ...env }).filter(([, v]) => v !== undefined))
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (c) => {
      stdout += c
    })
    child.stderr.on("data", (c) => {
      stderr += c
    })
    child.on("close", (code) => done({ code, stdout, stderr }))
  })
