/**
 * The vocabulary of the column catalog (catalog.ts): one builder per kind of
 * column — `str` (a static string kept on the ticker), `num` and `flag` (a
 * number or boolean computed from market state), `fundamental` and
 * `fundamentalFlag` (kept on the ticker) —, the options they take (minute tier,
 * never null, vendor field), and the column families generated per period
 * (simple and exponential moving averages and the distances from them).
 */
import type { ColumnDef, ColumnSource, ColumnType } from "./catalog.js"

/** How a column differs from its kind's defaults: nullable, daily-only, not a vendor field. */
export interface Options {
  readonly nullable?: boolean
  readonly minuteTier?: boolean
  readonly vendor?: boolean
}

const def = (
  name: string,
  type: ColumnType,
  source: ColumnSource,
  unit: string,
  description: string,
  options: Options = {}
): ColumnDef => ({
  name,
  type,
  source,
  nullable: options.nullable ?? true,
  unit,
  description,
  minuteTier: options.minuteTier ?? false,
  signal: type !== "string",
  ...(options.vendor === true ? { vendor: true } : {})
})

export const str = (name: string, description: string, options: Options = {}) =>
  def(name, "string", "ticker", "", description, options)
export const num = (name: string, unit: string, description: string, options: Options = {}) =>
  def(name, "numeric", "state", unit, description, options)
export const flag = (name: string, description: string, options: Options = {}) =>
  def(name, "boolean", "state", "", description, options)
export const fundamental = (name: string, unit: string, description: string, options: Options = {}) =>
  def(name, "numeric", "ticker", unit, description, options)
export const fundamentalFlag = (name: string, description: string, options: Options = {}) =>
  def(name, "boolean", "ticker", "", description, options)

export const minute: Options = { minuteTier: true }
export const present: Options = { nullable: false }
export const minutePresent: Options = { minuteTier: true, nullable: false }
export const vendor: Options = { vendor: true }

export const smaColumns = [10, 20, 50, 100, 200].flatMap((n) => [
  num(`sma_${n}`, "USD", `Simple moving average of the daily close over the last ${n} sessions, today included.`),
  num(`pct_from_sma_${n}`, "fraction", `price / sma_${n} - 1.`, n === 50 || n === 200 ? minute : {}),
  flag(`above_sma_${n}`, `price > sma_${n}.`)
])

export const emaColumns = [10, 20, 50, 100, 200].map((n) =>
  num(
    `ema_${n}`,
    "USD",
    `Exponential moving average of the close, ${n} sessions, alpha = 2/(${n}+1), seeded with the SMA of the first ${n} closes.`
  )
)

export const emaDistanceColumns = [20, 50, 200].flatMap((n) => [
  num(`pct_from_ema_${n}`, "fraction", `price / ema_${n} - 1.`),
  flag(`above_ema_${n}`, `price > ema_${n}.`)
])
