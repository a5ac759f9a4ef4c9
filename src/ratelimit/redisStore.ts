/**
 * The Redis transcription of `window.ts`: one Lua script per check, so a
 * check is atomic across every instance sharing the Redis.
 *
 * One hash per rate-limit key, `vigil:rl:<key>`:
 *   - `<bucket index>` (`floor(ms / 1000)`) = `"<counted>:<oldest counted ms>:<latest admission ms>"`
 *   - `n` = admissions counted in live buckets, `lo` / `hi` = oldest / newest bucket index
 * A bucket's latest admission is always before the next bucket starts, so the
 * buckets leave the window in index order: the script walks up from `lo` and
 * stops at the first live one (dropping its oldest admission if that one has
 * left). Each index is walked past once in a key's life, so a check is O(1)
 * amortised (a handful of HGETs), however many buckets the key holds. On
 * admission it sets `PEXPIRE windowMs + 1000`: after the latest admission
 * leaves the window the key holds nothing that counts, so every key expires
 * by itself. A refusal never creates a key.
 *
 * The time is the caller's (`now`, from the Effect Clock), not Redis TIME, so
 * the two stores behave the same under TestClock.
 */
import { createHash } from "node:crypto"
import { Data, Effect } from "effect"
import type { Redis as IORedis } from "ioredis"
import { BUCKET_MS, type WindowOutcome } from "./window.js"

export const KEY_PREFIX = "vigil:rl:"

/** KEYS[1] = hash; ARGV = now ms, limit, window ms, bucket ms, ttl ms. Returns {allowed, count, resetMs, retryMs}. */
export const CHECK_SCRIPT = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local window = tonumber(ARGV[3])
local bucketMs = tonumber(ARGV[4])
local ttl = tonumber(ARGV[5])
local horizon = now - window

local function field(i) return string.format("%d", i) end
local function bucket(i)
  local v = redis.call("HGET", key, field(i))
  if not v then return nil, nil, nil end
  local c, f, t = string.match(v, "^(%d+):(%-?%d+):(%-?%d+)$")
  if c == nil then
    -- written by an earlier version as "<count>:<latest ms>": all of them taken to be at the latest
    c, t = string.match(v, "^(%d+):(%-?%d+)$")
    f = t
  end
  return tonumber(c), tonumber(f), tonumber(t)
end
local function put(c, f, t) return string.format("%d:%d:%d", c, f, t) end

local meta = redis.call("HMGET", key, "n", "lo", "hi")
local total = tonumber(meta[1])
local lo = tonumber(meta[2])
local hi = tonumber(meta[3])
if total == nil or lo == nil or hi == nil then
  total, lo, hi = 0, nil, nil
end

-- drop the buckets that left the window, oldest first; then the oldest admission of the first live one if it left
local dropped = false
if lo ~= nil then
  while lo <= hi do
    local c, f, t = bucket(lo)
    if c ~= nil and t > horizon then
      if f <= horizon then
        total = total - 1
        redis.call("HSET", key, field(lo), put(c - 1, t, t))
        dropped = true
      end
      break
    end
    if c ~= nil then
      total = total - c
      redis.call("HDEL", key, field(lo))
    end
    lo = lo + 1
    dropped = true
  end
  if lo > hi then
    redis.call("DEL", key)
    total, lo, hi = 0, nil, nil
    dropped = false
  end
end

local allowed = 0
local latest = nil
if limit > 0 and total < limit then
  allowed = 1
  local b = math.floor(now / bucketMs)
  -- the current bucket, or the newest one when this clock is behind it
  if hi ~= nil and hi >= b then b = hi end
  local c, f, t = 0, now, now
  if b == hi then
    local oc, of, ot = bucket(b)
    if oc ~= nil then
      c, f = oc, of
      if ot > now then t = ot end
    end
  end
  total = total + 1
  if lo == nil then lo = b end
  hi = b
  redis.call("HSET", key, field(b), put(c + 1, f, t), "n", total, "lo", lo, "hi", hi)
  redis.call("PEXPIRE", key, ttl)
  latest = t
elseif dropped then
  redis.call("HSET", key, "n", total, "lo", lo)
end

local resetMs = 0
if hi ~= nil then
  if latest == nil then
    local _, _, t = bucket(hi)
    latest = t
  end
  if latest ~= nil then resetMs = latest + window - now end
end

local retryMs = 0
if allowed == 0 then
  retryMs = window
  if limit > 0 and lo ~= nil then
    -- the oldest admissions must leave until the total is below the limit: each bucket's oldest, then the rest
    local need = total - limit + 1
    local acc = 0
    local i = lo
    while i <= hi do
      local c, f, t = bucket(i)
      if c ~= nil then
        if f < t then
          acc = acc + 1
          if acc >= need then
            retryMs = f + window - now
            break
          end
          acc = acc + c - 1
        else
          acc = acc + c
        end
        if acc >= need then
          retryMs = t + window - now
          break
        end
      end
      i = i + 1
    end
  end
end
return { allowed, total, resetMs, retryMs }
`

export class RedisCheckFailed extends Data.TaggedError("RedisCheckFailed")<{
  readonly reason: string
  readonly cause?: unknown
}> {}

const sha1 = (text: string) => createHash("sha1").update(text).digest("hex")

/**
 * Runs a one-key Lua script: `EVALSHA`, and `EVAL` (which also caches it) when
 * the server answers NOSCRIPT — after a restart, a `SCRIPT FLUSH` or on a new
 * server. Does not touch the shared client (no `defineCommand`).
 */
export const evalScript = (client: IORedis, script: string, sha: string = sha1(script)) => {
  return async (key: string, args: ReadonlyArray<string | number>): Promise<unknown> => {
    try {
      return await client.evalsha(sha, 1, key, ...args)
    } catch (error) {
      if (error instanceof Error && error.message.includes("NOSCRIPT")) {
        return await client.eval(script, 1, key, ...args)
      }
      throw error
    }
  }
}

const TIMED_OUT = Symbol("timed out")

/**
 * Settles with the promise, or with TIMED_OUT after `ms` of real time (a plain
 * timer, so the bound holds under TestClock too; cheaper than racing a fiber).
 */
const within = <A>(promise: Promise<A>, ms: number) =>
  new Promise<A | typeof TIMED_OUT>((resolve, reject) => {
    const timer = setTimeout(() => resolve(TIMED_OUT), ms)
    promise.then(
      (a) => {
        clearTimeout(timer)
        resolve(a)
      },
      (e) => {
        clearTimeout(timer)
        reject(e)
      }
    )
  })

const isOutcomeReply = (reply: unknown): reply is [number, number, number, number] =>
  Array.isArray(reply) && reply.length === 4 && reply.every((v) => typeof v === "number")

/**
 * One check against Redis, `now` from the caller's Clock, bounded by
 * `timeoutMs` of real time. Fails with `RedisCheckFailed` on any error, a
 * timeout or an unexpected reply; the caller applies the outage policy.
 */
export const makeRedisWindow = (client: IORedis, timeoutMs: number) => {
  const run = evalScript(client, CHECK_SCRIPT)
  return (key: string, limit: number, windowMs: number, now: number): Effect.Effect<WindowOutcome, RedisCheckFailed> =>
    Effect.tryPromise({
      try: () => within(run(`${KEY_PREFIX}${key}`, [now, limit, windowMs, BUCKET_MS, windowMs + BUCKET_MS]), timeoutMs),
      catch: (cause) => new RedisCheckFailed({ reason: cause instanceof Error ? cause.message : String(cause), cause })
    }).pipe(
      Effect.flatMap((reply) =>
        reply === TIMED_OUT
          ? Effect.fail(new RedisCheckFailed({ reason: `no answer within ${timeoutMs} ms` }))
          : isOutcomeReply(reply)
            ? Effect.succeed<WindowOutcome>({
                allowed: reply[0] === 1,
                count: reply[1],
                resetMs: reply[2],
                retryMs: reply[3]
              })
            : Effect.fail(new RedisCheckFailed({ reason: `unexpected reply ${JSON.stringify(reply)}` }))
      )
    )
}
