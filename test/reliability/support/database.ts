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

/** A fresh schema on `url`: the DATABASE_URL for the service, an inspector, and `drop`. */
export const privateSchema = async (url: string, prefix: string) => {
  const schema = `${prefix}_${randomBytes(5).toString("hex")}`
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  await admin.query(`CREATE SCHEMA ${schema}`)
  await admin.end()
  const serviceUrl = withSearchPath(url, schema)
  const inspector = async (): Promise<Inspector> => {
    const client = new pg.Client({ connectionString: serviceUrl })
    await client.connect()
    client.on("error", () => {})
    return {
      query: async (text, params) => (await client.query(text, params as Array<unknown> | undefined)).rows,
      close: () => client.end()
    }
  }
  const drop = async () => {
    const c = new pg.Client({ connectionString: url })
    await c.connect()
    await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
    await c.end()
  }
  return { schema, serviceUrl, inspector, drop }
}

/** The embedded store of a stopped service (DATA_DIR), opened with PGlite. */
export const embeddedInspector = async (dataDir: string): Promise<Inspector> => {
  const db = await PGlite.create(resolve(dataDir, "pgdata"))
  return {
    query: async (text, params) => (await db.query<any>(text, params as Array<unknown> | undefined)).rows,
    close: () => db.close()
  }
}
