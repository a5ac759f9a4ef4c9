/**
 * vitest globalSetup, first of all: the run's temporary files (every data directory a test makes, the
 * embedded database template, the services' stored state) in a folder of their own on the machine's
 * RAM disk (`/dev/shm`) when it has room, as `TMPDIR` for this process and every test process after it;
 * the folder and whatever a test left in it are removed after the run. On this machine's disk a copy
 * of the 40 MB template costs ~1.4 s of system CPU, on the RAM disk ~0.1 s, and the embedded database
 * writes and syncs its pages there as cheaply (docs/benchmarks.md). Without a RAM disk with room, or
 * with `TMPDIR` already set, nothing changes.
 */
import { chmodSync, mkdtempSync, rmSync, statfsSync } from "node:fs"
import { join } from "node:path"

const RAM_DISK = "/dev/shm"
/** free space the run needs on it: two files at a time, each with a service or a deep history grid */
const ROOM_BYTES = 4 * 1024 ** 3

const freeBytes = (path: string): number => {
  try {
    const s = statfsSync(path)
    return s.bavail * s.bsize
  } catch {
    return 0
  }
}

export default function ramDisk(): (() => void) | undefined {
  if (process.env.TMPDIR !== undefined || freeBytes(RAM_DISK) < ROOM_BYTES) return undefined
  const dir = mkdtempSync(join(RAM_DISK, "vigil-tests-"))
  // open to every user, as /tmp is: the dependency-faults proof runs a PostgreSQL of its own as `postgres`
  chmodSync(dir, 0o1777)
  process.env.TMPDIR = dir
  return () => rmSync(dir, { recursive: true, force: true })
}
