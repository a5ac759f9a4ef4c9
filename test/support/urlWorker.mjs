/**
 * Worker module of `workerThread.test.ts`, as a build writes one (plain JavaScript): answers the URL
 * it was loaded as.
 */
import { parentPort } from "node:worker_threads"

parentPort.postMessage({ ok: true, value: import.meta.url })
