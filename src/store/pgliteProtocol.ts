/** The messages between `PgliteClient.ts` and its database thread (`pgliteWorker.ts`). */

export interface PgliteWorkerInput {
  /** directory for a file-backed database; undefined for in-memory */
  readonly dataDir: string | undefined
  /** the data directory holds no cluster yet: create one first */
  readonly create: boolean
}

/**
 * A statement carries `tx`, its transaction's number, when it runs in one: once a transaction's
 * first statement has started, only that transaction's statements run until its `end`; the others
 * wait, in the order they came.
 */
export type PgliteStatement =
  /** statements in the simple protocol (several in one text); answers the rows of all */
  | { readonly op: "exec"; readonly id: number; readonly tx: number | undefined; readonly sql: string }
  /** one statement with parameters; answers its rows, as objects or arrays */
  | {
      readonly op: "query"
      readonly id: number
      readonly tx: number | undefined
      readonly sql: string
      readonly params: ReadonlyArray<unknown>
      readonly rowMode: "object" | "array"
    }
  /** one statement with parameters; answers PGlite's whole result */
  | {
      readonly op: "raw"
      readonly id: number
      readonly tx: number | undefined
      readonly sql: string
      readonly params: ReadonlyArray<unknown>
    }
  /** `COPY … FROM '/dev/blob'` with `data` as the blob (the bulk import's binary rows); answers nothing */
  | {
      readonly op: "copy"
      readonly id: number
      readonly tx: number | undefined
      readonly sql: string
      readonly data: Uint8Array
    }

export type PgliteRequest =
  | PgliteStatement
  /** transaction `tx` is over (committed or rolled back): other statements may run */
  | { readonly op: "end"; readonly tx: number }
  /** closes the database once the statement running is done; those still waiting fail */
  | { readonly op: "close" }

/** What failed: the error's message, and PostgreSQL's report fields (code, detail, constraint, …) */
export interface PgliteFailure {
  readonly message: string
  readonly name?: string
  readonly report?: Readonly<Record<string, string>>
}

export type PgliteReply =
  | { readonly type: "open" }
  | { readonly type: "open-failed"; readonly error: PgliteFailure }
  | { readonly type: "result"; readonly id: number; readonly rows: unknown }
  | { readonly type: "error"; readonly id: number; readonly error: PgliteFailure }
  | { readonly type: "closed" }

/**
 * PostgreSQL's buffer cache inside PGlite's WebAssembly memory, touched when the database opens:
 * PGlite's 128 MB default was a tenth of the service's memory at ready. The data directory's
 * files stay in the kernel's page cache, so a smaller pool costs a read call, not a disk read.
 */
export const PGLITE_SHARED_BUFFERS = "32MB"
