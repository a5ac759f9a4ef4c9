/** A page's buttons that change something: each runs its call, then says what it did (or what failed) and reloads. */
import { useState } from "react"

export const useActions = (reload: () => void) => {
  const [error, setError] = useState<unknown>(undefined)
  const [notice, setNotice] = useState<string | undefined>(undefined)
  /** a click handler: `work`, then `done` said in a status and `reload`; a failure in the page's alert */
  const act = (work: () => Promise<unknown>, done: string) => () => {
    setError(undefined)
    setNotice(undefined)
    work().then(
      () => {
        setNotice(done)
        reload()
      },
      (e: unknown) => setError(e)
    )
  }
  return { act, error, setError, notice }
}
