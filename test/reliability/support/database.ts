/**
 * The reliability proofs' own view of the service's database: a PostgreSQL
 * schema of their own (created here, dropped after) or the embedded store's
 * data directory (opened with PGlite while the service is stopped).
 */
import { randomBytes } from "node:crypto"
import { resolve } from "node:path"
import { PGlite } from "@electric-sql/pglite"
import pg from "pg"

export interface Inspector {
  /** runs statements (while the service runs for PostgreSQL; while it is stopped for the embedded store) */
  readonly query: <A = any>(text: string, params?: ReadonlyArray<unknown>) => Promise<Array<A>>
  readonly close: () => Promise<void>
}

export const withSearchPath = (url: string, schema: string) => {
  const u = new URL(url)
  u.searchParams.set("options", `-c search_path=${schema}`)
  return u.toString()
}

/** Runs one statement on `url` with a connection of its own. */
const onServer = async (url: string, statement: string) => {
  const c = new pg.Client({ connectionString: url })
  await c.connect()
  try {
    await c.query(statement)
  } finally {
    await c.end()
  }
}

/** An inspector over a connection of its own to `url`. */
const inspectorOf = async (url: string): Promise<Inspector> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  client.on("error", () => {})
  return {
    query: async (text, params) => (await client.query(text, params as Array<unknown> | undefined)).rows,
    close: () => client.end()
  }
}

/** A fresh schema on `url`: the DATABASE_URL for the service, an inspector, and `drop`. */
export const privateSchema = async (url: string, prefix: string) => {
  const schema = `${prefix}_${randomBytes(5).toString("hex")}`
  await onServer(url, `CREATE SCHEMA ${schema}`)
  const serviceUrl = withSearchPath(url, schema)
  const inspector = () => inspectorOf(serviceUrl)
  const drop = () => onServer(url, `DROP SCHEMA IF EXISTS ${schema} CASCADE`)
  return { schema, serviceUrl, inspector, drop }
}

/**
 * A fresh database on the server of `url` (created here, dropped after, with whatever sessions are
 * still open on it): the DATABASE_URL for the services, an inspector, and `drop`. For proofs that
 * run a whole cluster: its tables (`cluster_*`, the service's) start empty and go with it.
 */
export const privateDatabase = async (url: string, prefix: string) => {
  const name = `${prefix}_${randomBytes(5).toString("hex")}`
  await onServer(url, `CREATE DATABASE ${name}`)
  const u = new URL(url)
  u.pathname = `/${name}`
  const serviceUrl = u.toString()
  const inspector = () => inspectorOf(serviceUrl)
  const drop = () => onServer(url, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  return { schema: name, serviceUrl, inspector, drop }
}

/** The embedded store of a stopped service (DATA_DIR), opened with PGlite. */
export const embeddedInspector = async (dataDir: string): Promise<Inspector> => {
  const db = await PGlite.create(resolve(dataDir, "pgdata"))
  return {
    query: async (text, params) => (await db.query<any>(text, params as Array<unknown> | undefined)).rows,
    close: () => db.close()
  }
}
