/**
 * The q language's vocabulary as plain data: every column with its type, unit, description and
 * group, every function with its signature — the dashboard's catalog endpoint and the MCP
 * server's catalog resource read it.
 */
import { CATALOG, type ColumnGroup, type ColumnType, columnGroup } from "../market/catalog.js"
import { FUNCTIONS } from "./functions.js"

export interface VocabularyColumn {
  readonly name: string
  readonly type: ColumnType
  readonly unit: string
  readonly description: string
  readonly group: ColumnGroup
  readonly minute_tier: boolean
}

export interface Vocabulary {
  readonly columns: ReadonlyArray<VocabularyColumn>
  readonly functions: ReadonlyArray<{ readonly name: string; readonly signature: string; readonly description: string }>
}

export const VOCABULARY: Vocabulary = {
  columns: CATALOG.map((c) => ({
    name: c.name,
    type: c.type,
    unit: c.unit,
    description: c.description,
    group: columnGroup.get(c.name)!,
    minute_tier: c.minuteTier
  })),
  functions: FUNCTIONS.map((f) => ({ name: f.name, signature: f.signature, description: f.description }))
}
