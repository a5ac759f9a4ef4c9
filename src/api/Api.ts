/**
 * The whole HTTP contract of Vigil: one HttpApi, one group per resource. The
 * OpenAPI document and the typed client are generated from it.
 */
import { HttpApi, OpenApi } from "@effect/platform"
import { AccountApi } from "./account/Api.js"
import { AdminApi } from "./admin/Api.js"
import { InternalError } from "./errors.js"
import { MarketApi } from "./market/Api.js"
import { NewsApi } from "./news/Api.js"
import { RulesApi } from "./rules/Api.js"
import { ScanApi } from "./scan/Api.js"
import { SignalsApi } from "./signals/Api.js"
import { SystemApi } from "./system/Api.js"
import { TickersApi } from "./tickers/Api.js"
import { UniversesApi } from "./universes/Api.js"
import { WebhooksApi } from "./webhooks/Api.js"

export class VigilApi extends HttpApi.make("vigil")
  .add(SystemApi)
  .add(AdminApi)
  .add(AccountApi)
  .add(TickersApi)
  .add(MarketApi)
  .add(UniversesApi)
  .add(ScanApi)
  .add(RulesApi)
  .add(SignalsApi)
  .add(WebhooksApi)
  .add(NewsApi)
  .addError(InternalError)
  .annotate(OpenApi.Title, "Vigil API")
  .annotate(OpenApi.Version, "2.2.1") {}
