import { Context, type Deferred } from "effect"

/** Completing this with a failure stops the service (see main.ts). */
export class Fatal extends Context.Tag("vigil/Fatal")<Fatal, Deferred.Deferred<never, Error>>() {}
