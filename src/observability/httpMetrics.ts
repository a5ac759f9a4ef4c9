import { Metric, MetricBoundaries } from "effect"

export const httpRequestsTotal = Metric.counter("http_requests_total", {
  description: "HTTP requests by method, route and status",
  incremental: true
})

export const httpRequestDuration = Metric.histogram(
  "http_request_duration_seconds",
  MetricBoundaries.fromIterable([0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]),
  "HTTP request duration in seconds by method, route and status"
)

export const hotLaneTotal = Metric.counter("http_hot_lane_total", {
  description:
    "Requests on the direct path (a live scan, a ticker's live row, a webhook create; src/api/direct) by outcome: hit (answered from the answers cache), miss (answered directly, made now; every create answered there), filled (an answer made now kept for repeated reads), bypass (answered by the API: a rule, own universe, custom signal, asof, invalid parameter, a create's refused check or taken Idempotency-Key, unknown key or rate limited)",
  incremental: true
})
