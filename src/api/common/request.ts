/** The decoded request of an endpoint, by group and name: what a handler hands to the function that answers it. */
import type { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"

/** The request (`path`, `urlParams`, `payload`, `headers`) of endpoint `Name` of `Group` (`typeof <Group>Api`). */
export type RequestOf<Group, Name extends string> = HttpApiEndpoint.HttpApiEndpoint.Request<
  HttpApiEndpoint.HttpApiEndpoint.WithName<HttpApiGroup.HttpApiGroup.Endpoints<Group>, Name>
>
