/**
 * The Signals page (`#/signals`): the account's custom signals — created, edited and deleted, each
 * expression checked by the server as it is typed (problems shown at their place) — and the whole
 * catalog, built-in and custom, searchable by name and description.
 */

import { type FormEvent, type ReactNode, useCallback, useEffect, useId, useMemo, useState } from "react"
import { ApiError, type QueryProblem, type Session } from "./api"
import {
  type Catalog,
  type CustomSignal,
  checkExpression,
  createSignal,
  deleteSignal,
  loadCatalog,
  updateSignal
} from "./catalogApi"
import { Problem } from "./errors"
import { QueryEditor } from "./QueryEditor"
import { Time } from "./time"
import { type ColumnNote, loadColumnNotes, useVocabulary } from "./vocabulary"

/** plans without custom signals (the API: Pro and above); the API's own 403 replaces this guess when it answers one */
const WITHOUT_CUSTOM = new Set(["none", "free", "hobby"])

/** how long typing must pause before the expression is checked */
const CHECK_AFTER_MS = 400

const seconds = (s: number) => new Date(s * 1000).toISOString()

const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e))

/** the last answer about an expression (kept, with the text it was about, while the next check runs) */
type Check =
  | { readonly _tag: "none" }
  | { readonly _tag: "ok"; readonly expr: string }
  | { readonly _tag: "problems"; readonly expr: string; readonly problems: ReadonlyArray<QueryProblem> }
  | { readonly _tag: "failed"; readonly expr: string; readonly message: string }

const NONE: Check = { _tag: "none" }

/** an expression's check, from an error answered for it (a save's or a check's) */
const checkOf = (expr: string, e: unknown): Check =>
  e instanceof ApiError && e.problems.length > 0
    ? { _tag: "problems", expr, problems: e.problems }
    : { _tag: "failed", expr, message: messageOf(e) }

/**
 * `expr` checked by the server (compiled, nothing saved) once typing pauses; the setter puts a save's
 * answer in the same place.
 */
const useCheck = (session: Session, expr: string) => {
  const [check, setCheck] = useState<Check>(NONE)
  const [pending, setPending] = useState(false)
  useEffect(() => {
    if (expr.trim() === "") {
      setCheck(NONE)
      setPending(false)
      return
    }
    let stale = false
    setPending(true)
    const timer = window.setTimeout(() => {
      checkExpression(session, expr).then(
        () => {
          if (stale) return
          setCheck({ _tag: "ok", expr })
          setPending(false)
        },
        (e: unknown) => {
          if (stale) return
          setCheck(checkOf(expr, e))
          setPending(false)
        }
      )
    }, CHECK_AFTER_MS)
    return () => {
      stale = true
      window.clearTimeout(timer)
    }
  }, [session, expr])
  return { check, pending, setCheck }
}

/** a refused create or save: the plan's refusal as the tier note, an expression's problems at their place, else the message */
const refused = (
  e: unknown,
  expr: string,
  to: {
    readonly onTier: (message: string) => void
    readonly setCheck: (check: Check) => void
    readonly setError: (message: string) => void
  }
) => {
  if (e instanceof ApiError && e.code === "custom_signals_tier_required") to.onTier(e.message)
  else if (e instanceof ApiError && e.problems.length > 0) to.setCheck(checkOf(expr, e))
  else to.setError(messageOf(e))
}

/** An expression's text area and, under it, what the server says of it: compiles, or each problem with a caret. */
const ExpressionField = ({
  label,
  value,
  onChange,
  check,
  pending
}: {
  readonly label: ReactNode
  readonly value: string
  readonly onChange: (expr: string) => void
  readonly check: Check
  readonly pending: boolean
}) => {
  const fieldId = useId()
  const problemsId = useId()
  const vocabulary = useVocabulary()
  const invalid = check._tag === "problems" && check.expr === value
  // labelled by `for`, not by wrapping: a wrapping label's name would take in the text typed
  return (
    <>
      <div className="query">
        <label htmlFor={fieldId}>{label}</label>
        <QueryEditor
          id={fieldId}
          value={value}
          onChange={onChange}
          vocabulary={vocabulary}
          rows={2}
          required
          invalid={invalid}
          describedBy={check._tag === "problems" ? problemsId : undefined}
        />
      </div>
      {check._tag === "problems" ? (
        <ul id={problemsId} role="alert" className="error problems">
          {check.problems.map((p) => (
            <Problem key={`${p.pos}:${p.code}:${p.message}`} q={check.expr} problem={p} />
          ))}
        </ul>
      ) : check._tag === "failed" ? (
        <p role="alert" className="error">
          {check.message}
        </p>
      ) : null}
      <p className="muted small" aria-live="polite">
        {pending ? "Checking…" : check._tag === "ok" && check.expr === value ? "✓ Compiles." : ""}
      </p>
    </>
  )
}

/** The form that creates a custom signal. */
const CreateSignal = ({
  session,
  onCreated,
  onTier
}: {
  readonly session: Session
  readonly onCreated: (signal: CustomSignal) => void
  readonly onTier: (message: string) => void
}) => {
  const [name, setName] = useState("")
  const [expr, setExpr] = useState("")
  const [description, setDescription] = useState("")
  const [error, setError] = useState<string | undefined>(undefined)
  const [busy, setBusy] = useState(false)
  const { check, pending, setCheck } = useCheck(session, expr)

  const create = async (event: FormEvent) => {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    try {
      const made = await createSignal(session, {
        name: name.trim(),
        expr,
        ...(description.trim() === "" ? {} : { description: description.trim() })
      })
      setName("")
      setExpr("")
      setDescription("")
      onCreated(made.signal)
    } catch (e) {
      refused(e, expr, { onTier, setCheck, setError })
    } finally {
      setBusy(false)
    }
  }

  return (
    <form onSubmit={create} className="screen signal-form">
      <div className="row">
        <label>
          Name
          <input
            value={name}
            onChange={(e) => setName(e.target.value)}
            required
            autoComplete="off"
            spellCheck={false}
            aria-describedby="signal-name-hint"
          />
        </label>
        <label className="grow">
          Description <span className="muted">(optional)</span>
          <input value={description} onChange={(e) => setDescription(e.target.value)} maxLength={500} />
        </label>
      </div>
      <p id="signal-name-hint" className="muted small">
        Lower-case letters, digits and <code>_</code>, starting with a letter; not a built-in's name.
      </p>
      <ExpressionField label="Expression" value={expr} onChange={setExpr} check={check} pending={pending} />
      {error === undefined ? null : (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      <button type="submit" disabled={busy}>
        Create signal
      </button>
    </form>
  )
}

/** A custom signal's expression and description, edited in place. */
const EditSignal = ({
  session,
  signal,
  onSaved,
  onCancel,
  onTier
}: {
  readonly session: Session
  readonly signal: CustomSignal
  readonly onSaved: (signal: CustomSignal) => void
  readonly onCancel: () => void
  readonly onTier: (message: string) => void
}) => {
  const [expr, setExpr] = useState(signal.expr)
  const [description, setDescription] = useState(signal.description ?? "")
  const [error, setError] = useState<string | undefined>(undefined)
  const [busy, setBusy] = useState(false)
  const { check, pending, setCheck } = useCheck(session, expr)

  const save = async (event: FormEvent) => {
    event.preventDefault()
    setBusy(true)
    setError(undefined)
    try {
      const saved = await updateSignal(session, signal.name, {
        expr,
        description: description.trim() === "" ? null : description.trim()
      })
      onSaved(saved.signal)
    } catch (e) {
      refused(e, expr, { onTier, setCheck, setError })
    } finally {
      setBusy(false)
    }
  }

  return (
    <form onSubmit={save} className="screen signal-form">
      <ExpressionField
        label={
          <>
            Expression<span className="sr-only"> of {signal.name}</span>
          </>
        }
        value={expr}
        onChange={setExpr}
        check={check}
        pending={pending}
      />
      <label>
        Description<span className="sr-only"> of {signal.name}</span> <span className="muted">(optional)</span>
        <input value={description} onChange={(e) => setDescription(e.target.value)} maxLength={500} />
      </label>
      {error === undefined ? null : (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      <div className="row">
        <button type="submit" disabled={busy}>
          Save
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  )
}

/** the account's other signals whose expressions name `name` (as the API's delete refusal finds them) */
const referencing = (custom: ReadonlyArray<CustomSignal>, name: string) =>
  custom.filter((s) => s.name !== name && new RegExp(`\\b${name}\\b`, "i").test(s.expr)).map((s) => s.name)

interface CatalogRow {
  readonly name: string
  readonly kind: "built-in" | "custom"
  readonly type: string
  readonly unit: string
  readonly description: string
  readonly expr?: string
}

/** The Signals page: the account's custom signals (Pro and above) and the searchable catalog. */
export const Signals = ({ session }: { readonly session: Session }) => {
  const [catalog, setCatalog] = useState<Catalog | undefined>(undefined)
  const [notes, setNotes] = useState<ReadonlyMap<string, ColumnNote>>(new Map())
  const [error, setError] = useState<string | undefined>(undefined)
  const [notice, setNotice] = useState<string | undefined>(undefined)
  const [search, setSearch] = useState("")
  const [editing, setEditing] = useState<string | undefined>(undefined)
  const [tier, setTier] = useState<string | undefined>(undefined)

  const load = useCallback(() => {
    loadCatalog().then(setCatalog, (e: unknown) => setError(messageOf(e)))
  }, [])
  useEffect(load, [load])
  useEffect(() => {
    loadColumnNotes().then(setNotes, () => setNotes(new Map()))
  }, [])

  const allowed = tier === undefined && !WITHOUT_CUSTOM.has(session.user.plan)
  const custom = catalog?.custom ?? []

  const rows = useMemo((): ReadonlyArray<CatalogRow> => {
    if (catalog === undefined) return []
    return [
      ...catalog.custom.map(
        (s): CatalogRow => ({
          name: s.name,
          kind: "custom",
          type: "boolean",
          unit: "",
          description: s.description ?? "",
          expr: s.expr
        })
      ),
      ...catalog.builtin.map(
        (s): CatalogRow => ({
          name: s.name,
          kind: "built-in",
          type: s.type,
          unit: notes.get(s.name)?.unit ?? "",
          description: s.description ?? notes.get(s.name)?.description ?? ""
        })
      )
    ]
  }, [catalog, notes])

  const words = search
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== "")
  const shown = rows.filter((r) => {
    const text = `${r.name} ${r.description} ${r.expr ?? ""}`.toLowerCase()
    return words.every((w) => text.includes(w))
  })

  const fail = (e: unknown) => {
    if (e instanceof ApiError && e.code === "custom_signals_tier_required") setTier(e.message)
    else setError(messageOf(e))
  }

  const remove = async (signal: CustomSignal) => {
    if (!window.confirm(`Delete ${signal.name}? Subscriptions made with it keep their own copy of it.`)) return
    setError(undefined)
    setNotice(undefined)
    try {
      try {
        await deleteSignal(session, signal.name)
      } catch (e) {
        if (!(e instanceof ApiError && e.status === 409)) throw e
        const users = referencing(custom, signal.name)
        const which = users.length === 0 ? "another of your signals" : users.join(", ")
        if (!window.confirm(`${signal.name} is used by ${which}. Delete it anyway? Those will no longer compile.`))
          return
        await deleteSignal(session, signal.name, true)
      }
      setNotice(`Deleted ${signal.name}.`)
      if (editing === signal.name) setEditing(undefined)
      load()
    } catch (e) {
      fail(e)
    }
  }

  return (
    <section aria-labelledby="signals-title">
      <h1 id="signals-title">Signals</h1>
      <p className="muted">
        A signal is a column of the ticker row: a boolean flag, or a number to compare. A custom signal is a named
        boolean expression of them, usable in a screen's query and a subscription like a built-in flag.
      </p>

      <section aria-labelledby="custom-title" className="panel">
        <h2 id="custom-title">Your signals</h2>
        {allowed ? (
          <CreateSignal
            session={session}
            onTier={setTier}
            onCreated={(s) => {
              setNotice(`Created ${s.name}.`)
              load()
            }}
          />
        ) : (
          <p role="note" className="note">
            {tier ?? `Custom signals need the Pro plan or above; this account is on the ${session.user.plan} plan.`} The
            catalog below is readable on every plan.
          </p>
        )}
        {notice === undefined ? null : <p role="status">{notice}</p>}
        {error === undefined ? null : (
          <p role="alert" className="error">
            {error}
          </p>
        )}
        {catalog === undefined ? null : custom.length === 0 ? (
          <p className="muted">No custom signals yet.</p>
        ) : (
          <ul className="cards" aria-label="Custom signals">
            {custom.map((s) => (
              <li key={s.name}>
                <article aria-labelledby={`signal-${s.name}`}>
                  <h3 id={`signal-${s.name}`}>
                    <code>{s.name}</code>
                  </h3>
                  {editing === s.name ? (
                    <EditSignal
                      session={session}
                      signal={s}
                      onTier={setTier}
                      onCancel={() => setEditing(undefined)}
                      onSaved={(saved) => {
                        setEditing(undefined)
                        setNotice(`Saved ${saved.name}.`)
                        load()
                      }}
                    />
                  ) : (
                    <>
                      <pre className="expr">{s.expr}</pre>
                      {s.description === null ? null : <p>{s.description}</p>}
                      <p className="muted small">
                        Changed <Time iso={seconds(s.updated_at)} />
                      </p>
                      {allowed ? (
                        <div className="actions">
                          <button type="button" onClick={() => setEditing(s.name)}>
                            Edit {s.name}
                          </button>
                          <button type="button" className="danger" onClick={() => void remove(s)}>
                            Delete <span className="sr-only">{s.name}</span>
                          </button>
                        </div>
                      ) : null}
                    </>
                  )}
                </article>
              </li>
            ))}
          </ul>
        )}
      </section>

      <section aria-labelledby="catalog-title">
        <h2 id="catalog-title">Catalog</h2>
        <label className="search">
          Search signals
          <input
            type="search"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            placeholder="rsi, volume, 52-week…"
            autoComplete="off"
          />
        </label>
        {catalog === undefined ? (
          error === undefined ? (
            <p className="muted">Loading the catalog…</p>
          ) : null
        ) : (
          <>
            <p className="muted" aria-live="polite">
              {shown.length === rows.length
                ? `${rows.length} signals: ${catalog.builtin.length} built-in, ${custom.length} custom.`
                : `${shown.length} of ${rows.length} signals match.`}
            </p>
            {shown.length === 0 ? null : (
              <table className="data catalog" aria-labelledby="catalog-title">
                <thead>
                  <tr>
                    <th scope="col">Name</th>
                    <th scope="col">Kind</th>
                    <th scope="col">Type</th>
                    <th scope="col">Unit</th>
                    <th scope="col">Description</th>
                  </tr>
                </thead>
                <tbody>
                  {shown.map((r) => (
                    <tr key={`${r.kind}:${r.name}`}>
                      <td>
                        <code>{r.name}</code>
                      </td>
                      <td>{r.kind}</td>
                      <td>{r.type}</td>
                      <td>{r.unit === "" ? "—" : r.unit}</td>
                      <td className="wrap">
                        <div>
                          {r.expr === undefined ? null : <code>{r.expr}</code>}
                          {r.expr === undefined || r.description === "" ? null : " — "}
                          {r.description}
                        </div>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </>
        )}
      </section>
    </section>
  )
}
