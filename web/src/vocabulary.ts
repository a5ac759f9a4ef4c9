/**
 * The q language's vocabulary for the editor and the column picker: the columns with their
 * descriptions and groups and the functions (`/dashboard/api/catalog`, the same for everyone,
 * fetched once a page load), and the account's custom signals (`GET /v2/signals`, fetched again
 * when asked, as they change).
 */
import { useEffect, useState } from "react"
import { call } from "./api"
import { loadCatalog } from "./catalogApi"

export type ColumnGroup =
  | "identity"
  | "price"
  | "volume"
  | "trend"
  | "momentum"
  | "volatility"
  | "fundamentals"
  | "news"

export interface ColumnInfo {
  readonly name: string
  readonly type: "boolean" | "numeric" | "string"
  readonly unit: string
  readonly description: string
  readonly group: ColumnGroup
  readonly minute_tier: boolean
}

export interface FunctionInfo {
  readonly name: string
  readonly signature: string
  readonly description: string
}

export interface CustomSignalInfo {
  readonly name: string
  readonly expr: string
  readonly description: string | null
}

export interface Vocabulary {
  readonly columns: ReadonlyArray<ColumnInfo>
  readonly functions: ReadonlyArray<FunctionInfo>
  readonly custom: ReadonlyArray<CustomSignalInfo>
}

export const GROUP_NAMES: Readonly<Record<ColumnGroup, string>> = {
  identity: "Identity",
  price: "Price",
  volume: "Volume",
  trend: "Trend",
  momentum: "Momentum",
  volatility: "Volatility",
  fundamentals: "Fundamentals",
  news: "News"
}

export const KEYWORDS: ReadonlyArray<string> = [
  "AND",
  "OR",
  "NOT",
  "IN",
  "BETWEEN",
  "LIKE",
  "IS",
  "NULL",
  "TRUE",
  "FALSE"
]

let builtins: Promise<Pick<Vocabulary, "columns" | "functions">> | undefined

/** the columns and functions, described (fetched once a page load) */
export const loadBuiltins = () => {
  builtins ??= call<Pick<Vocabulary, "columns" | "functions">>("GET", "/dashboard/api/catalog").catch((e) => {
    builtins = undefined
    throw e
  })
  return builtins
}

/** the account's custom signals (the catalog's `expression` entries, every page) */
export const loadCustomSignals = async (): Promise<ReadonlyArray<CustomSignalInfo>> =>
  (await loadCatalog()).custom.map((s) => ({ name: s.name, expr: s.expr, description: s.description }))

export interface ColumnNote {
  readonly description: string
  /** e.g. "USD", "fraction", "shares"; "" when none */
  readonly unit: string
}

/** the built-in columns' definitions and units, by name (`GET /v2/signals` lists built-ins by name, type and source only) */
export const loadColumnNotes = async (): Promise<ReadonlyMap<string, ColumnNote>> => {
  const { columns } = await loadBuiltins()
  return new Map(columns.map((c) => [c.name, { description: c.description, unit: c.unit }]))
}

const EMPTY: Vocabulary = { columns: [], functions: [], custom: [] }

/** the vocabulary (empty until it arrives, and if it cannot: the editor then just has no completion) */
export const useVocabulary = (): Vocabulary => {
  const [vocabulary, setVocabulary] = useState<Vocabulary>(EMPTY)
  useEffect(() => {
    let live = true
    Promise.all([loadBuiltins(), loadCustomSignals().catch(() => [])]).then(
      ([b, custom]) => {
        if (live) setVocabulary({ ...b, custom })
      },
      () => undefined
    )
    return () => {
      live = false
    }
  }, [])
  return vocabulary
}
