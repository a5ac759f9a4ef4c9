/**
 * The annotation that puts an endpoint on the direct path (lane.ts): its
 * common requests are answered without the HttpApi router and fibers, by the
 * named answer (answers.ts; a webhook create: create.ts), under the same
 * request policy. Only the
 * annotation lives here, so the API's definitions import nothing of the path.
 */
import { Context } from "effect"

/** Which direct answer serves an endpoint: a live scan, a ticker's live row, or a webhook create. */
export type DirectKind = "scan" | "ticker" | "webhookCreate"

export class DirectRead extends Context.Tag("vigil/DirectRead")<DirectRead, DirectKind>() {}
