/** Runs a work generator (one that yields between slices of work) to its end. */
export const runToEnd = <A>(gen: Generator<void, A>): A => {
  for (;;) {
    const step = gen.next()
    if (step.done) return step.value
  }
}
