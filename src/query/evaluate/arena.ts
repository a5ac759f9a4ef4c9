/**
 * Scratch buffers for one evaluation. Evaluation is synchronous, so buffers
 * taken during one evaluation are all returned to a per-size pool when it
 * ends; a steady stream of evaluations over same-size snapshots allocates
 * nothing.
 */
interface Pool {
  readonly f64: Array<Float64Array>
  readonly u8: Array<Uint8Array>
  readonly i32: Array<Int32Array>
}

const pools = new Map<number, Pool>()

const poolFor = (n: number): Pool => {
  let p = pools.get(n)
  if (p === undefined) {
    p = { f64: [], u8: [], i32: [] }
    pools.set(n, p)
    // snapshots of many different sizes (historical replays) must not pin memory forever
    if (pools.size > 8) pools.delete(pools.keys().next().value as number)
  }
  return p
}

export class Arena {
  private readonly pool: Pool
  private readonly takenF64: Array<Float64Array> = []
  private readonly takenU8: Array<Uint8Array> = []
  private readonly takenI32: Array<Int32Array> = []

  constructor(readonly n: number) {
    this.pool = poolFor(n)
  }

  f64(): Float64Array {
    const b = this.pool.f64.pop() ?? new Float64Array(this.n)
    this.takenF64.push(b)
    return b
  }

  /** contents are unspecified (callers write before they read) */
  u8(): Uint8Array {
    const b = this.pool.u8.pop() ?? new Uint8Array(this.n)
    this.takenU8.push(b)
    return b
  }

  /** a zero-filled byte buffer */
  u8Zero(): Uint8Array {
    const b = this.u8()
    b.fill(0)
    return b
  }

  i32(): Int32Array {
    const b = this.pool.i32.pop() ?? new Int32Array(this.n)
    this.takenI32.push(b)
    return b
  }

  release(): void {
    for (const b of this.takenF64) this.pool.f64.push(b)
    for (const b of this.takenU8) this.pool.u8.push(b)
    for (const b of this.takenI32) this.pool.i32.push(b)
    this.takenF64.length = 0
    this.takenU8.length = 0
    this.takenI32.length = 0
  }
}

const identities = new Map<number, Int32Array>()

/** 0, 1, …, n-1 (shared, read-only). */
export const allRows = (n: number): Int32Array => {
  let a = identities.get(n)
  if (a === undefined) {
    a = new Int32Array(n)
    for (let i = 0; i < n; i++) a[i] = i
    identities.set(n, a)
    if (identities.size > 8) identities.delete(identities.keys().next().value as number)
  }
  return a
}
