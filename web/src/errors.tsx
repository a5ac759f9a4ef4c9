/** A failure shown to a person: the API's message, and a query's problems at their place. */
import { ApiError, type QueryProblem } from "./api"

/** A problem of the query shown at its place: the line, a caret under the position, the suggestion. */
export const Problem = ({ q, problem }: { readonly q: string; readonly problem: QueryProblem }) => {
  const chars = Array.from(q)
  const before = chars.slice(0, problem.pos).join("")
  const lineStart = before.lastIndexOf("\n") + 1
  const lineEnd = q.indexOf("\n", lineStart)
  const line = q.slice(lineStart, lineEnd < 0 ? undefined : lineEnd)
  const column = Array.from(before.slice(lineStart)).length
  return (
    <li>
      <span>{problem.message}</span>
      {problem.suggestion === undefined || /did you mean/i.test(problem.message) ? null : (
        <span> Did you mean {problem.suggestion}?</span>
      )}
      <pre aria-hidden="true" className="caret">
        {line}
        {"\n"}
        {`${" ".repeat(column)}^`}
      </pre>
    </li>
  )
}

export const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e))

/** `error` (nothing when undefined) in an alert; a query's problems under `q` with a caret each */
export const ErrorNote = ({ error, q }: { readonly error: unknown; readonly q?: string }) =>
  error === undefined ? null : error instanceof ApiError && error.problems.length > 0 && q !== undefined ? (
    <ul role="alert" className="error problems">
      {error.problems.map((p) => (
        <Problem key={`${p.pos}:${p.code}:${p.message}`} q={q} problem={p} />
      ))}
    </ul>
  ) : (
    <p role="alert" className="error">
      {messageOf(error)}
    </p>
  )
