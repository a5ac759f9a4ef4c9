/**
 * The dashboard's built files (`web/` built into `dist/web/` by `npm install` or
 * `npm run build:web`), served at `/` on the API's port: `index.html` never cached, the hashed
 * `assets/` cached for a year. A page script runs only from this origin (a Content-Security-Policy
 * without inline scripts), in no frame. Without a build, `/` says how to make one (503).
 */
import { readFile } from "node:fs/promises"
import { fileURLToPath } from "node:url"
import { HttpApiBuilder, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { refusal } from "../envelope.js"

const DIST = fileURLToPath(new URL("../../../dist/web/", import.meta.url))

const TYPES: Record<string, string> = {
  js: "text/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png",
  woff2: "font/woff2",
  json: "application/json",
  html: "text/html; charset=utf-8"
}

const SECURITY = {
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "x-frame-options": "DENY"
}

/** files read once (a rebuild needs a restart) */
const files = new Map<string, Uint8Array>()

const read = (name: string) =>
  Effect.tryPromise(async () => {
    let bytes = files.get(name)
    if (bytes === undefined) {
      bytes = new Uint8Array(await readFile(`${DIST}${name}`))
      files.set(name, bytes)
    }
    return bytes
  }).pipe(Effect.option)

const serve = (name: string, cache: string) =>
  Effect.gen(function* () {
    const bytes = yield* read(name)
    if (bytes._tag === "None") {
      return name === "index.html"
        ? yield* refusal(
            503,
            "service_unavailable",
            "the dashboard is not built: run `npm run build:web` (npm install does)"
          )
        : yield* refusal(404, "not_found", `no dashboard file ${name}`)
    }
    const type = TYPES[name.slice(name.lastIndexOf(".") + 1)] ?? "application/octet-stream"
    return HttpServerResponse.uint8Array(bytes.value, {
      contentType: type,
      headers: { "cache-control": cache, ...SECURITY }
    })
  })

const ASSET = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.[a-z0-9]+$/

const index = serve("index.html", "no-cache")

export const DashboardStaticLive = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    yield* router.get("/", index)
    yield* router.get("/index.html", index)
    yield* router.get(
      "/assets/:file",
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const file = decodeURIComponent(request.url.split("?")[0]!.slice("/assets/".length))
        if (!ASSET.test(file)) return yield* refusal(404, "not_found", `no dashboard file ${file}`)
        return yield* serve(`assets/${file}`, "public, max-age=31536000, immutable")
      })
    )
  })
)
