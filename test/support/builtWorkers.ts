/**
 * vitest setup file (every test file's process): the service's worker threads start from `npm start`'s
 * build, which this run made before any test (globalSetup serviceBuild.ts), instead of loading their
 * TypeScript through tsx in each thread: opening an embedded database costs ~2 s of CPU less each time.
 * Runs that did not make the build (a script, a benchmark) keep tsx.
 */
import { startWorkersFromRunBuild } from "./serviceBuild.js"

startWorkersFromRunBuild()
