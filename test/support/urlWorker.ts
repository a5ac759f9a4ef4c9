/**
 * Worker module of `workerThread.test.ts`, in TypeScript: answers the URL it was loaded as.
 */
import { parentPort } from "node:worker_threads"

const url: string = import.meta.url
parentPort!.postMessage({ ok: true, value: url })
