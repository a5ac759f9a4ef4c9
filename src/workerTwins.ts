/**
 * Which module a worker thread starts when the process runs the TypeScript (src/workerThread.ts):
 * the module's built twin, once the process has said where the build is. A module of its own, with
 * no import beyond Node's, so that a test process can say so before it loads anything else
 * (test/support/builtWorkers.ts).
 */
import { existsSync } from "node:fs"
import { relative, resolve } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

/** the folders of `startWorkersFromBuild`, once a process has said so */
let twins: { readonly src: string; readonly build: string } | undefined

/**
 * From here on, a worker whose TypeScript module lies under `src` starts from the module's built
 * twin under `build` (scripts/build-server.mjs keeps the folders and names), as `npm start`'s
 * workers do, when the twin exists; other modules as before. For a process that runs the
 * TypeScript and knows the build is of the same sources, because its run made it (vitest's
 * globalSetup, test/support/serviceBuild.ts): a worker under tsx loads its modules through tsx's
 * loader, on a thread of its own, every time it starts — ~2 s of CPU more for each embedded
 * database a test opens (docs/benchmarks.md). The twin's own imports resolve inside `build`.
 */
export const startWorkersFromBuild = (src: string, build: string): void => {
  twins = { src: resolve(src), build: resolve(build) }
}

/** `module`'s built twin, when `startWorkersFromBuild` was called and the module has one */
export const builtTwin = (module: URL): URL | undefined => {
  if (twins === undefined || module.protocol !== "file:" || !module.pathname.endsWith(".ts")) return undefined
  const path = relative(twins.src, fileURLToPath(module))
  if (path.startsWith("..")) return undefined
  const twin = resolve(twins.build, path.replace(/\.ts$/, ".js"))
  return existsSync(twin) ? pathToFileURL(twin) : undefined
}
