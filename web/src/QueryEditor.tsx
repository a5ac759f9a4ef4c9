/**
 * The q editor: a textarea drawn over its own highlighted copy (columns, custom signals, functions,
 * keywords, strings, numbers; an unknown name underlined), and completion from the vocabulary for
 * the word at the caret — a listbox with each entry's description, moved with the arrow keys,
 * taken with Enter or Tab, closed with Escape (the ARIA combobox pattern).
 */
import { type KeyboardEvent, useId, useLayoutEffect, useMemo, useRef, useState } from "react"
import { KEYWORDS, type Vocabulary } from "./vocabulary"

interface Suggestion {
  readonly label: string
  /** what replaces the word */
  readonly insert: string
  readonly kind: "column" | "custom" | "function" | "keyword"
  readonly detail: string
}

type TokenKind = "column" | "custom" | "function" | "keyword" | "string" | "number" | "unknown" | "plain"

const TOKEN =
  /('(?:[^']|'')*'?)|(\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?)|(\s+)|(.)/g

const tokens = (q: string, vocabulary: Vocabulary) => {
  const columns = new Set(vocabulary.columns.map((c) => c.name))
  const custom = new Set(vocabulary.custom.map((c) => c.name))
  const functions = new Set(vocabulary.functions.map((f) => f.name))
  const known = vocabulary.columns.length > 0
  const out: Array<{ readonly text: string; readonly kind: TokenKind }> = []
  for (const m of q.matchAll(TOKEN)) {
    const [text, str, num, word] = m
    if (str !== undefined) out.push({ text, kind: "string" })
    else if (num !== undefined) out.push({ text, kind: "number" })
    else if (word !== undefined) {
      const upper = word.toUpperCase()
      const lower = word.includes(".") ? word.slice(word.indexOf(".") + 1).toLowerCase() : word.toLowerCase()
      const kind: TokenKind = KEYWORDS.includes(upper)
        ? "keyword"
        : functions.has(upper) || upper === "CEILING"
          ? "function"
          : custom.has(lower)
            ? "custom"
            : columns.has(lower)
              ? "column"
              : known
                ? "unknown"
                : "plain"
      out.push({ text, kind })
    } else out.push({ text, kind: "plain" })
  }
  return out
}

/** the identifier being typed just before the caret: where it starts, and its text */
const wordAt = (q: string, caret: number) => {
  let start = caret
  while (start > 0 && /[A-Za-z0-9_]/.test(q[start - 1]!)) start--
  const word = q.slice(start, caret)
  // inside a string, or a number, or after a dot (`AAPL.price` names a column too, after its ticker)
  const quotes = (q.slice(0, start).match(/'/g) ?? []).length
  if (quotes % 2 === 1 || /^\d/.test(word)) return undefined
  return { start, word }
}

const suggestionsFor = (word: string, vocabulary: Vocabulary): ReadonlyArray<Suggestion> => {
  const w = word.toLowerCase()
  if (w.length === 0) return []
  const all: Array<Suggestion> = [
    ...vocabulary.custom.map(
      (c): Suggestion => ({ label: c.name, insert: c.name, kind: "custom", detail: c.description ?? c.expr })
    ),
    ...vocabulary.columns.map(
      (c): Suggestion => ({
        label: c.name,
        insert: c.name,
        kind: "column",
        detail: `${c.description}${c.unit === "" ? "" : ` (${c.unit})`}`
      })
    ),
    ...vocabulary.functions.map(
      (f): Suggestion => ({ label: f.signature, insert: `${f.name}(`, kind: "function", detail: f.description })
    ),
    ...KEYWORDS.map((k): Suggestion => ({ label: k, insert: k, kind: "keyword", detail: "keyword" }))
  ]
  const name = (s: Suggestion) => s.insert.replace(/\($/, "").toLowerCase()
  // a word typed in capitals looks for a function or keyword first
  const capitals = word === word.toUpperCase() && /[A-Z]/.test(word)
  const rank = (s: Suggestion) => (capitals === (s.kind === "function" || s.kind === "keyword") ? 0 : 1)
  const starts = all.filter((s) => name(s).startsWith(w) && name(s) !== w)
  const contains = all.filter((s) => !name(s).startsWith(w) && name(s).includes(w))
  return [...starts.sort((a, b) => rank(a) - rank(b)), ...contains].slice(0, 8)
}

export const QueryEditor = ({
  id,
  value,
  onChange,
  vocabulary,
  invalid = false,
  describedBy,
  rows = 3,
  readOnly = false,
  required = false,
  placeholder
}: {
  readonly id: string
  readonly value: string
  readonly onChange: (q: string) => void
  readonly vocabulary: Vocabulary
  readonly invalid?: boolean
  readonly describedBy?: string | undefined
  readonly rows?: number
  readonly readOnly?: boolean
  readonly required?: boolean
  readonly placeholder?: string
}) => {
  const area = useRef<HTMLTextAreaElement>(null)
  const mirror = useRef<HTMLPreElement>(null)
  const listId = useId()
  const [caret, setCaret] = useState<number | undefined>(undefined)
  const [active, setActive] = useState(0)
  const [closed, setClosed] = useState(false)
  /** where the caret goes once a taken suggestion is in the textarea */
  const placeCaret = useRef<number | undefined>(undefined)

  // in the same commit as the text, before the next key is handled: a frame later, keys typed
  // meanwhile would land after a caret moved back behind them
  useLayoutEffect(() => {
    const position = placeCaret.current
    if (position === undefined || area.current === null) return
    placeCaret.current = undefined
    area.current.focus()
    area.current.setSelectionRange(position, position)
  })

  const highlighted = useMemo(() => tokens(value, vocabulary), [value, vocabulary])
  const at = caret === undefined || readOnly ? undefined : wordAt(value, caret)
  const suggestions = at === undefined || closed ? [] : suggestionsFor(at.word, vocabulary)
  const open = suggestions.length > 0
  const current = Math.min(active, suggestions.length - 1)

  const track = () => {
    const el = area.current
    if (el !== null) setCaret(el.selectionStart === el.selectionEnd ? el.selectionStart : undefined)
  }

  const take = (s: Suggestion) => {
    if (at === undefined) return
    const next = value.slice(0, at.start) + s.insert + value.slice(caret)
    const position = at.start + s.insert.length
    placeCaret.current = position
    onChange(next)
    setCaret(position)
    setClosed(true)
  }

  const keys = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (!open) return
    if (e.key === "ArrowDown") {
      e.preventDefault()
      setActive((current + 1) % suggestions.length)
    } else if (e.key === "ArrowUp") {
      e.preventDefault()
      setActive((current - 1 + suggestions.length) % suggestions.length)
    } else if (e.key === "Enter" || e.key === "Tab") {
      e.preventDefault()
      take(suggestions[current]!)
    } else if (e.key === "Escape") {
      e.preventDefault()
      setClosed(true)
    }
  }

  return (
    <div className="query-editor">
      <div className="query-layers">
        <pre ref={mirror} className="query-mirror" aria-hidden="true">
          {highlighted.map((t, i) =>
            t.kind === "plain" ? (
              t.text
            ) : (
              // biome-ignore lint/suspicious/noArrayIndexKey: tokens are positional
              <span key={i} className={`tok-${t.kind}`}>
                {t.text}
              </span>
            )
          )}
          {"\n"}
        </pre>
        <textarea
          ref={area}
          id={id}
          value={value}
          rows={rows}
          spellCheck={false}
          autoCapitalize="off"
          autoComplete="off"
          readOnly={readOnly}
          required={required}
          placeholder={placeholder}
          role="combobox"
          aria-autocomplete="list"
          aria-expanded={open}
          aria-controls={listId}
          aria-activedescendant={open ? `${listId}-${current}` : undefined}
          aria-invalid={invalid}
          aria-describedby={describedBy}
          onChange={(e) => {
            onChange(e.target.value)
            setCaret(e.target.selectionStart)
            setActive(0)
            setClosed(false)
          }}
          onKeyDown={keys}
          onKeyUp={(e) => {
            if (!["ArrowDown", "ArrowUp", "Enter", "Tab", "Escape"].includes(e.key)) track()
          }}
          onClick={track}
          onBlur={() => setClosed(true)}
          onFocus={() => setClosed(false)}
          onScroll={(e) => {
            if (mirror.current !== null) mirror.current.scrollTop = e.currentTarget.scrollTop
          }}
        />
      </div>
      <div id={listId} role="listbox" aria-label="Suggestions" className="suggestions" hidden={!open}>
        {suggestions.map((s, i) => (
          <div
            key={`${s.kind}:${s.label}`}
            id={`${listId}-${i}`}
            role="option"
            tabIndex={-1}
            aria-selected={i === current}
            className={i === current ? "active" : undefined}
            onMouseDown={(e) => {
              // keep the focus in the textarea
              e.preventDefault()
              take(s)
            }}
          >
            <span className={`tok-${s.kind}`}>{s.label}</span> <span className="muted">{s.detail}</span>
          </div>
        ))}
      </div>
    </div>
  )
}
