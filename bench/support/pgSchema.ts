/**
 * A schema of its own on `databaseUrl` for one bench run: created, handed to `run` as a URL whose
 * `search_path` is that schema (what the service's `DATABASE_URL` takes), and dropped after,
 * whatever `run` does.
 */
import { randomBytes } from "node:crypto"
import pg from "pg"
import { withSchema } from "../../test/support/backends.js"

export const withPgSchema = async <A>(databaseUrl: string, run: (url: string) => Promise<A>): Promise<A> => {
  const schema = `b_${randomBytes(6).toString("hex")}`
  const admin = new pg.Client({ connectionString: databaseUrl })
  await admin.connect()
  try {
    await admin.query(`CREATE SCHEMA ${schema}`)
    return await run(withSchema(databaseUrl, schema))
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
    await admin.end()
  }
}
