import { type FormEvent, useEffect, useRef, useState } from "react"
import {
  ApiError,
  type Cell,
  listUniverses,
  type QueryProblem,
  type ScanAnswer,
  type ScanRequest,
  type Session,
  scan,
  type UniverseInfo
} from "./api"
import { Backtest } from "./Backtest"
import { ColumnPicker } from "./ColumnPicker"
import { ErrorNote, Problem } from "./errors"
import { QueryEditor } from "./QueryEditor"
import { Subscribe } from "./Subscribe"
import { listRules, type SavedRule, saveRule } from "./screenerApi"
import { Time } from "./time"
import { useVocabulary } from "./vocabulary"

const PAGE_SIZES = [25, 50, 100] as const

const shown = (v: Cell | undefined): string =>
  v === null || v === undefined
    ? "—"
    : typeof v === "number"
      ? Number.isInteger(v)
        ? v.toLocaleString()
        : v.toLocaleString(undefined, { maximumFractionDigits: 4 })
      : String(v)

/** The screener: a `q`, a universe and an optional date; the matches sortable by column and paged. */
export const Screener = ({ session }: { readonly session: Session }) => {
  const [q, setQ] = useState("price > 10 AND rsi_14 < 30")
  const [universe, setUniverse] = useState("")
  const [asof, setAsof] = useState("")
  const [universes, setUniverses] = useState<ReadonlyArray<UniverseInfo>>([])
  const [request, setRequest] = useState<ScanRequest | undefined>(undefined)
  const [answer, setAnswer] = useState<ScanAnswer | undefined>(undefined)
  const [pages, setPages] = useState<ReadonlyArray<string | undefined>>([undefined])
  const [problems, setProblems] = useState<ReadonlyArray<QueryProblem>>([])
  const [error, setError] = useState<string | undefined>(undefined)
  const [busy, setBusy] = useState(false)
  const [limit, setLimit] = useState<number>(50)
  const [fields, setFields] = useState<ReadonlyArray<string>>([])
  const vocabulary = useVocabulary()
  /** when the answer arrived (performance.now), and how long its rows took to show */
  const received = useRef<number | undefined>(undefined)
  const [renderMs, setRenderMs] = useState<number | undefined>(undefined)
  const [renders, setRenders] = useState(0)

  useEffect(() => {
    listUniverses().then(setUniverses, () => setUniverses([]))
  }, [])

  // the rows are on screen once the frame after their commit starts
  useEffect(() => {
    const since = received.current
    if (answer === undefined || since === undefined) return
    const frame = requestAnimationFrame(() => {
      setRenderMs(performance.now() - since)
      setRenders((n) => n + 1)
    })
    return () => cancelAnimationFrame(frame)
  }, [answer])

  const run = async (next: ScanRequest, trail: ReadonlyArray<string | undefined>) => {
    setBusy(true)
    setError(undefined)
    setProblems([])
    try {
      const got = await scan(session, next)
      received.current = performance.now()
      setRequest(next)
      setAnswer(got)
      setPages(trail)
    } catch (e) {
      if (e instanceof ApiError && e.problems.length > 0) setProblems(e.problems)
      else setError(e instanceof Error ? e.message : String(e))
      setAnswer(undefined)
    } finally {
      setBusy(false)
    }
  }

  const submit = (event: FormEvent) => {
    event.preventDefault()
    const next: ScanRequest = {
      q,
      limit,
      ...(universe === "" ? {} : { universe }),
      ...(asof === "" ? {} : { asof }),
      ...(fields.length === 0 ? {} : { fields: fields.join(",") }),
      ...(request?.q === q && request.order !== undefined ? { order: request.order, dir: request.dir } : {})
    }
    void run(next, [undefined])
  }

  const sortBy = (column: string) => {
    if (request === undefined || answer === undefined) return
    const dir = answer.query.order === column && answer.query.dir === "desc" ? "asc" : "desc"
    const { cursor: _, ...rest } = request
    void run({ ...rest, order: column, dir }, [undefined])
  }

  const page = (cursor: string | undefined, trail: ReadonlyArray<string | undefined>) => {
    if (request === undefined) return
    const { cursor: _, ...rest } = request
    void run(cursor === undefined ? rest : { ...rest, cursor }, trail)
  }

  const columns = answer === undefined || answer.results.length === 0 ? [] : Object.keys(answer.results[0]!)
  const first = pages.length === 1

  return (
    <section aria-labelledby="screener-title">
      <h1 id="screener-title">Screener</h1>
      <form onSubmit={submit} className="screen">
        <div className="query">
          <label htmlFor="screen-q">Query</label>
          <QueryEditor
            id="screen-q"
            value={q}
            onChange={setQ}
            vocabulary={vocabulary}
            invalid={problems.length > 0}
            describedBy={problems.length > 0 ? "query-problems" : undefined}
          />
        </div>
        <Rules
          onLoad={(rule) => {
            setQ(rule.q)
            setUniverse(rule.universe ?? "")
            setFields(rule.fields)
          }}
        />
        <div className="row">
          <label>
            Universe
            <select value={universe} onChange={(e) => setUniverse(e.target.value)}>
              <option value="">Whole market</option>
              {universes.map((u) => (
                <option key={u.id} value={u.id}>
                  {u.name} ({u.size})
                </option>
              ))}
            </select>
          </label>
          <label>
            As of
            <input type="date" value={asof} onChange={(e) => setAsof(e.target.value)} />
          </label>
          <label>
            Rows
            <select value={limit} onChange={(e) => setLimit(Number(e.target.value))}>
              {PAGE_SIZES.map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </select>
          </label>
          <ColumnPicker vocabulary={vocabulary} chosen={fields} onChange={setFields} />
          <button type="submit" disabled={busy}>
            Run
          </button>
        </div>
      </form>
      {problems.length === 0 ? null : (
        <ul id="query-problems" role="alert" className="error problems">
          {problems.map((p) => (
            <Problem key={`${p.pos}:${p.code}:${p.message}`} q={q} problem={p} />
          ))}
        </ul>
      )}
      {error === undefined ? null : (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {answer === undefined ? null : (
        <>
          <p className="muted" aria-live="polite">
            {answer.total === 0
              ? "No ticker matches."
              : `${answer.count} of ${answer.total.toLocaleString()} matching tickers, as of `}
            {answer.total === 0 ? null : <Time iso={answer.as_of} />}
          </p>
          {answer.results.length === 0 ? null : (
            <table
              className="data"
              data-render-ms={renderMs === undefined ? undefined : renderMs.toFixed(1)}
              data-renders={renders}
            >
              <thead>
                <tr>
                  {columns.map((c) => (
                    <th
                      key={c}
                      scope="col"
                      aria-sort={
                        answer.query.order === c ? (answer.query.dir === "asc" ? "ascending" : "descending") : "none"
                      }
                    >
                      <button type="button" className="sort" onClick={() => sortBy(c)}>
                        {c}
                        {answer.query.order === c ? (answer.query.dir === "asc" ? " ▲" : " ▼") : ""}
                      </button>
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {answer.results.map((row) => (
                  <tr key={String(row.ticker)}>
                    {columns.map((c) => (
                      <td
                        key={c}
                        className={typeof row[c] === "number" ? "num" : undefined}
                        title={typeof row[c] === "string" ? String(row[c]) : undefined}
                      >
                        {c === "ticker" && typeof row[c] === "string" ? (
                          <a href={`#/tickers/${encodeURIComponent(row[c])}`}>{row[c]}</a>
                        ) : (
                          shown(row[c])
                        )}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <div className="row">
            <button
              type="button"
              disabled={busy || first}
              onClick={() => page(pages[pages.length - 2], pages.slice(0, -1))}
            >
              Previous page
            </button>
            <button
              type="button"
              disabled={busy || answer.next_cursor === null}
              onClick={() => page(answer.next_cursor ?? undefined, [...pages, answer.next_cursor ?? undefined])}
            >
              Next page
            </button>
          </div>
          {request === undefined ? null : (
            <>
              <SaveRule key={`rule|${request.q}`} session={session} request={request} />
              <Subscribe
                key={`${request.q}|${request.universe ?? ""}`}
                session={session}
                q={request.q}
                universe={request.universe}
              />
              <Backtest
                key={`backtest|${request.q}|${request.universe ?? ""}`}
                session={session}
                q={request.q}
                universe={request.universe}
                order={request.order}
                dir={request.dir}
              />
            </>
          )}
        </>
      )}
    </section>
  )
}

/** the account's saved rules, one loaded into the screen */
const Rules = ({ onLoad }: { readonly onLoad: (rule: SavedRule) => void }) => {
  const [rules, setRules] = useState<ReadonlyArray<SavedRule>>([])
  useEffect(() => {
    listRules().then(
      (r) => setRules(r.rules),
      () => setRules([])
    )
  }, [])
  if (rules.length === 0) return null
  return (
    <label className="rules">
      Saved rules
      <select
        value=""
        onChange={(e) => {
          const rule = rules.find((r) => r.id === e.target.value)
          if (rule !== undefined) onLoad(rule)
        }}
      >
        <option value="">Load a saved rule…</option>
        {rules.map((r) => (
          <option key={r.id} value={r.id}>
            {r.name}
          </option>
        ))}
      </select>
    </label>
  )
}

/** the screen as run (query, universe, order, columns) saved as a named rule */
const SaveRule = ({ session, request }: { readonly session: Session; readonly request: ScanRequest }) => {
  const [name, setName] = useState("")
  const [saved, setSaved] = useState<SavedRule | undefined>(undefined)
  const [error, setError] = useState<unknown>(undefined)
  const save = (event: FormEvent) => {
    event.preventDefault()
    setError(undefined)
    saveRule(session, {
      name: name.trim(),
      q: request.q,
      ...(request.universe === undefined ? {} : { universe: request.universe }),
      ...(request.order === undefined ? {} : { order: request.order }),
      ...(request.dir === undefined ? {} : { dir: request.dir }),
      fields: request.fields === undefined ? [] : request.fields.split(",")
    }).then(setSaved, setError)
  }
  return (
    <form onSubmit={save} className="row save-rule" aria-label="Save as rule">
      <label>
        Rule name
        <input value={name} onChange={(e) => setName(e.target.value)} required maxLength={80} />
      </label>
      <button type="submit">Save as rule</button>
      {saved === undefined ? null : (
        <p role="status">
          Saved as {saved.name} (<code>{saved.id}</code>): scan it with <code>rule={saved.id}</code>.
        </p>
      )}
      <ErrorNote error={error} q={request.q} />
    </form>
  )
}
