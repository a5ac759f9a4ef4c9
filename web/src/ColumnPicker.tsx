/** The screener's column picker: extra columns (`fields`) for the results, found by name or description, by group. */
import { useState } from "react"
import { type ColumnGroup, GROUP_NAMES, type Vocabulary } from "./vocabulary"

export const ColumnPicker = ({
  vocabulary,
  chosen,
  onChange
}: {
  readonly vocabulary: Vocabulary
  readonly chosen: ReadonlyArray<string>
  readonly onChange: (fields: ReadonlyArray<string>) => void
}) => {
  const [open, setOpen] = useState(false)
  const [find, setFind] = useState("")
  const needle = find.trim().toLowerCase()
  const matching = vocabulary.columns.filter(
    (c) =>
      c.group !== "identity" &&
      (needle === "" || c.name.includes(needle) || c.description.toLowerCase().includes(needle))
  )
  const groups = Object.keys(GROUP_NAMES) as Array<ColumnGroup>
  const toggle = (name: string) =>
    onChange(chosen.includes(name) ? chosen.filter((f) => f !== name) : [...chosen, name])

  return (
    <div className={open ? "column-picker open" : "column-picker"}>
      <button type="button" aria-expanded={open} aria-controls="column-picker" onClick={() => setOpen(!open)}>
        Columns{chosen.length === 0 ? "" : ` (${chosen.length})`}
      </button>
      {open ? (
        <fieldset id="column-picker" className="panel picker">
          <legend>Extra columns in the results</legend>
          <div className="row">
            <label className="grow">
              Find a column
              <input value={find} onChange={(e) => setFind(e.target.value)} placeholder="rsi, volume, earnings…" />
            </label>
            <button type="button" disabled={chosen.length === 0} onClick={() => onChange([])}>
              Clear columns
            </button>
          </div>
          {groups.map((g) => {
            const columns = matching.filter((c) => c.group === g)
            return columns.length === 0 ? null : (
              <fieldset key={g} className="picker-group">
                <legend>{GROUP_NAMES[g]}</legend>
                {columns.map((c) => (
                  <label key={c.name} title={c.description}>
                    <input type="checkbox" checked={chosen.includes(c.name)} onChange={() => toggle(c.name)} /> {c.name}
                    <span className="muted small"> {c.description}</span>
                  </label>
                ))}
              </fieldset>
            )
          })}
          {matching.length === 0 ? <p className="muted">No column matches.</p> : null}
        </fieldset>
      ) : null}
    </div>
  )
}
