/**
 * PostgreSQL's error codes (SQLSTATE) that the stores turn into answers, read off a `SqlError`
 * from either driver (`@effect/sql-pg`'s and the embedded one keep the server's `code`).
 */
import type { SqlError } from "@effect/sql/SqlError"

const codeOf = (e: SqlError): unknown => (e.cause as { code?: unknown } | undefined)?.code

/** unique_violation (23505): the key is stored already */
export const isUniqueViolation = (e: SqlError): boolean => codeOf(e) === "23505"

/** foreign_key_violation (23503): the row referred to is gone (deleted meanwhile) */
export const isForeignKeyViolation = (e: SqlError): boolean => codeOf(e) === "23503"
