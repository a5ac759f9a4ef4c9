/**
 * The dashboard's session: sign in (email and password checked by `Users`, with its lockout; the
 * session cookie set), who is signed in, sign out (the session ended, the cookie cleared).
 */
import { HttpApiBuilder, HttpServerRequest } from "@effect/platform"
import { Clock, Effect, Option } from "effect"
import { Accounts } from "../../accounts/Accounts.js"
import { DashboardSessions, SESSION_TTL_MS } from "../../accounts/DashboardSessions.js"
import { normalizeEmail } from "../../accounts/passwords.js"
import type { Plan } from "../../accounts/plans.js"
import { Users } from "../../accounts/Users.js"
import { AppConfig } from "../../config/AppConfig.js"
import { rateLimitKey, SIGN_IN_PER_MINUTE } from "../../ratelimit/policy.js"
import { RateLimiter } from "../../ratelimit/RateLimiter.js"
import type { RequestOf } from "../common/request.js"
import { orUnavailable, RateLimited, SignInLocked, Unauthenticated } from "../errors.js"
import { clientIp } from "../news/SandboxRateLimit.js"
import type { DashboardApi } from "./Api.js"
import { CurrentSession, sessionCookie } from "./DashboardAuth.js"

const WRONG = "wrong email or password"

/** `Secure` when the dashboard is served over https (its DASHBOARD_URL, or a proxy's X-Forwarded-Proto) */
const secureCookie = Effect.gen(function* () {
  const config = yield* AppConfig
  const request = yield* HttpServerRequest.HttpServerRequest
  const viaProxy = (request.headers["x-forwarded-proto"] ?? "").split(",")[0]?.trim().toLowerCase() === "https"
  return viaProxy || Option.exists(config.dashboardUrl, (url) => url.protocol === "https:")
})

const setSessionCookie = (token: string, maxAgeMs: number) =>
  Effect.flatMap(secureCookie, (secure) =>
    HttpApiBuilder.securitySetCookie(sessionCookie, token, {
      httpOnly: true,
      secure,
      sameSite: "strict",
      path: "/",
      maxAge: `${Math.max(0, Math.floor(maxAgeMs / 1000))} seconds`
    })
  )

const view = (
  session: { readonly user: { readonly id: string; readonly email: string; readonly accountId: string } },
  plan: Plan,
  csrf: string,
  expiresAt: number
) => ({
  user: { id: session.user.id, email: session.user.email, account_id: session.user.accountId, plan },
  csrf_token: csrf,
  expires_at: new Date(expiresAt).toISOString()
})

export const signIn = ({ payload }: RequestOf<typeof DashboardApi, "signIn">) =>
  Effect.gen(function* () {
    // attempts per client address, whatever the email (the lockout below is per email)
    const request = yield* HttpServerRequest.HttpServerRequest
    const decision = yield* (yield* RateLimiter).check(rateLimitKey.signIn(clientIp(request)), SIGN_IN_PER_MINUTE)
    if (!decision.allowed) {
      const retryAfter = decision.retryAfterSeconds ?? 1
      return yield* new RateLimited({
        message: `too many sign-in attempts from this address (${decision.limit} a minute): retry after ${retryAfter} s`,
        details: { retry_after: retryAfter }
      })
    }
    const users = yield* Users
    const sessions = yield* DashboardSessions
    const email = normalizeEmail(payload.email)
    // a malformed email is no user's: the same answer as a wrong one
    if (email === undefined) return yield* new Unauthenticated({ message: WRONG })
    const outcome = yield* orUnavailable(users.signIn(email, payload.password))
    if (outcome._tag === "Locked") {
      const now = yield* Clock.currentTimeMillis
      const seconds = Math.max(1, Math.ceil((outcome.until - now) / 1000))
      return yield* new SignInLocked({
        message: `too many wrong passwords for this email: sign-in is locked until ${new Date(outcome.until).toISOString()} (retry in ${seconds} s)`,
        details: { retry_after: seconds, locked_until: new Date(outcome.until).toISOString() }
      })
    }
    if (outcome._tag === "WrongPassword") {
      yield* Effect.logInfo("dashboard sign-in refused").pipe(
        Effect.annotateLogs({ locked: outcome.lockedUntil !== undefined })
      )
      return yield* new Unauthenticated({ message: WRONG })
    }
    const account = yield* orUnavailable((yield* Accounts).find(outcome.user.accountId))
    const plan: Plan = Option.match(account, { onNone: () => "none", onSome: (a) => a.plan })
    const opened = yield* orUnavailable(sessions.open(outcome.user))
    yield* setSessionCookie(opened.token, SESSION_TTL_MS)
    yield* Effect.logInfo("dashboard sign-in").pipe(Effect.annotateLogs({ user_id: outcome.user.id }))
    return view(outcome, plan, yield* orUnavailable(sessions.csrfOf(opened.token)), opened.expiresAt)
  })

export const currentSession = () =>
  Effect.gen(function* () {
    const session = yield* CurrentSession
    const csrf = yield* orUnavailable((yield* DashboardSessions).csrfOf(session.token))
    return view(session, session.plan, csrf, session.expiresAt)
  })

export const signOut = () =>
  Effect.gen(function* () {
    const session = yield* CurrentSession
    yield* orUnavailable((yield* DashboardSessions).close(session.token))
    yield* setSessionCookie("", 0)
    yield* Effect.logInfo("dashboard sign-out").pipe(Effect.annotateLogs({ user_id: session.user.id }))
    return { ok: true as const }
  })
