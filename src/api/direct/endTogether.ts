/**
 * Answers ended together: the direct path's answers made in one turn of the event loop are sent
 * after it (`setImmediate`, once the turn's readable sockets were all served), one after another.
 * A load generator or a proxy idle between answers is then woken once for the batch instead of
 * once for each answer; on a virtual machine each such wake-up of an idle core is dear (the
 * service's system time a distinct scan halved, docs/benchmarks.md). An answer waits at most for
 * the rest of the turn it was made in.
 */
import type { ServerResponse } from "node:http"

/** An answer's body as the direct path writes it: a miss's JSON text, or the bytes the answers cache keeps. */
export type AnswerBody = Uint8Array | string

export interface EndTogether {
  /** ends `res` with `body` once the current turn of the event loop is done */
  readonly end: (res: ServerResponse, body: AnswerBody) => void
}

export const makeEndTogether = (): EndTogether => {
  // response, body, response, body, …: one array, no object per answer
  let pending: Array<ServerResponse | AnswerBody> = []
  const flush = () => {
    const batch = pending
    pending = []
    for (let i = 0; i < batch.length; i += 2) {
      const res = batch[i] as ServerResponse
      // one answer that cannot be ended (its socket gone wrong) must not leave the rest of the batch unsent
      try {
        res.end(batch[i + 1] as AnswerBody)
      } catch {
        res.destroy()
      }
    }
  }
  return {
    end: (res, body) => {
      if (pending.length === 0) setImmediate(flush)
      pending.push(res, body)
    }
  }
}
