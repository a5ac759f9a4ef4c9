/**
 * The real servers some tests need. CI sets both variables, so every test
 * runs there; on a machine without them (a fresh clone, `npm test` and nothing
 * else) the tests that cannot run without one are skipped, each suite's name
 * saying which variable it needs, and the run starts with a notice
 * (test/support/notice.ts). A set but unreachable server fails those tests; it
 * is never skipped.
 */

const setting = (name: string): string | undefined => {
  const value = process.env[name]
  return value !== undefined && value !== "" ? value : undefined
}

/** DATABASE_URL when set and not empty. */
export const DATABASE_URL: string | undefined = setting("DATABASE_URL")
/** REDIS_URL when set and not empty. */
export const REDIS_URL: string | undefined = setting("REDIS_URL")

export const NEEDS_POSTGRES = "needs DATABASE_URL, a real PostgreSQL; CI sets it"
export const NEEDS_REDIS = "needs REDIS_URL, a real Redis; CI sets it"
export const NEEDS_BOTH = "needs DATABASE_URL and REDIS_URL, a real PostgreSQL and Redis; CI sets both"
