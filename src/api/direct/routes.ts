/**
 * The endpoints on the direct path, read from the API's definitions: those
 * annotated with `DirectRead`, each with its method, its route label (the
 * path pattern the metrics use) and a matcher built from its path.
 */
import { HttpApi } from "@effect/platform"
import { Context, Option } from "effect"
import { VigilApi } from "../Api.js"
import { type DirectKind, DirectRead } from "./DirectRead.js"

export interface DirectRoute {
  readonly method: string
  readonly kind: DirectKind
  /** the endpoint's path pattern, e.g. `/v2/tickers/:ticker` */
  readonly label: string
  /** the path parameters (still percent-encoded) of a path this route serves; undefined when it does not */
  readonly match: (path: string) => ReadonlyArray<string> | undefined
}

/** The regular expression source of an endpoint's path pattern, each `:param` a capture group. */
export const pathSource = (pattern: string): string =>
  pattern
    .split("/")
    .map((seg) => (seg.startsWith(":") ? "([^/]+)" : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/")

const matcher = (pattern: string): DirectRoute["match"] => {
  const regex = new RegExp(`^${pathSource(pattern)}$`)
  return (path) => regex.exec(path)?.slice(1)
}

export const directRoutes: ReadonlyArray<DirectRoute> = (() => {
  const out: Array<DirectRoute> = []
  HttpApi.reflect(VigilApi as any, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      const kind = Context.getOption(endpoint.annotations, DirectRead)
      if (Option.isSome(kind)) {
        out.push({ method: endpoint.method, kind: kind.value, label: endpoint.path, match: matcher(endpoint.path) })
      }
    }
  })
  return out
})()

/** The direct route of a request, if any. */
export const directRouteOf = (
  method: string,
  path: string
): { readonly route: DirectRoute; readonly params: ReadonlyArray<string> } | undefined => {
  for (const route of directRoutes) {
    if (route.method !== method) continue
    const params = route.match(path)
    if (params !== undefined) return { route, params }
  }
  return undefined
}
