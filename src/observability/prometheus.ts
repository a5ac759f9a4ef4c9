/**
 * Renders Effect's metric registry in the Prometheus text exposition format
 * (version 0.0.4). Counters, gauges, histograms (cumulative buckets, _sum,
 * _count), frequencies (one counter series per value) and summaries.
 */
import { Effect, Metric, MetricState } from "effect"
import type * as MetricPair from "effect/MetricPair"
import { processMetricsText } from "./processMetrics.js"
import { scrapeGaugesText } from "./scrapeGauges.js"

const escapeLabel = (v: string) => v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/"/g, '\\"')
const sanitizeName = (n: string) => n.replace(/[^a-zA-Z0-9_:]/g, "_")
const num = (v: number | bigint) =>
  typeof v === "bigint" ? v.toString() : Number.isFinite(v) ? String(v) : v > 0 ? "+Inf" : v < 0 ? "-Inf" : "NaN"

const labels = (tags: ReadonlyArray<{ key: string; value: string }>, extra: ReadonlyArray<[string, string]> = []) => {
  const all = [...tags.map((t) => [t.key, t.value] as const), ...extra]
  return all.length === 0 ? "" : `{${all.map(([k, v]) => `${sanitizeName(k)}="${escapeLabel(v)}"`).join(",")}}`
}

export const renderPrometheus = (pairs: ReadonlyArray<MetricPair.MetricPair.Untyped>): string => {
  const byName = new Map<string, { help: string; type: string; lines: Array<string> }>()
  const family = (name: string, type: string, help: string | undefined) => {
    let f = byName.get(name)
    if (!f) {
      f = { help: help ?? name, type, lines: [] }
      byName.set(name, f)
    }
    return f
  }
  for (const pair of pairs) {
    const name = sanitizeName(pair.metricKey.name)
    const tags = pair.metricKey.tags
    const help = pair.metricKey.description._tag === "Some" ? pair.metricKey.description.value : undefined
    const state = pair.metricState
    if (MetricState.isCounterState(state)) {
      family(name, "counter", help).lines.push(`${name}${labels(tags)} ${num(state.count)}`)
    } else if (MetricState.isGaugeState(state)) {
      family(name, "gauge", help).lines.push(`${name}${labels(tags)} ${num(state.value)}`)
    } else if (MetricState.isHistogramState(state)) {
      const f = family(name, "histogram", help)
      for (const [le, count] of state.buckets) {
        f.lines.push(`${name}_bucket${labels(tags, [["le", num(le)]])} ${count}`)
      }
      if (!state.buckets.some(([le]) => le === Number.POSITIVE_INFINITY)) {
        f.lines.push(`${name}_bucket${labels(tags, [["le", "+Inf"]])} ${state.count}`)
      }
      f.lines.push(`${name}_sum${labels(tags)} ${num(state.sum)}`)
      f.lines.push(`${name}_count${labels(tags)} ${state.count}`)
    } else if (MetricState.isFrequencyState(state)) {
      const f = family(name, "counter", help)
      for (const [value, count] of state.occurrences) {
        f.lines.push(`${name}${labels(tags, [["value", value]])} ${count}`)
      }
    } else if (MetricState.isSummaryState(state)) {
      const f = family(name, "summary", help)
      for (const [q, v] of state.quantiles) {
        if (v._tag === "Some") f.lines.push(`${name}${labels(tags, [["quantile", String(q)]])} ${num(v.value)}`)
      }
      f.lines.push(`${name}_sum${labels(tags)} ${num(state.sum)}`)
      f.lines.push(`${name}_count${labels(tags)} ${state.count}`)
    }
  }
  const out: Array<string> = []
  for (const [name, f] of [...byName.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    out.push(`# HELP ${name} ${f.help.replace(/\n/g, " ")}`, `# TYPE ${name} ${f.type}`, ...f.lines)
  }
  return `${out.join("\n")}\n`
}

/** Effect's metrics, the gauges read at scrape time, then the process's own (memory, CPU, V8 heap) */
export const prometheusText: Effect.Effect<string> = Effect.zipWith(
  Metric.snapshot,
  scrapeGaugesText,
  (pairs, scraped) => renderPrometheus(pairs) + scraped + processMetricsText()
)
