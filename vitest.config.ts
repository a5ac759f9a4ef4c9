import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // says which suites a run without DATABASE_URL, REDIS_URL or ../shared/data skips; one migrated
    // embedded database to copy; `npm start`'s build, which the services started as processes run
    globalSetup: ["test/support/notice.ts", "test/support/pgliteTemplate.ts", "test/support/serviceBuild.ts"],
    // `VIGIL_TEST_CPU_LOG=<file>`: each test file's CPU appended to that file (test/support/cpuPerFile.ts)
    setupFiles: process.env.VIGIL_TEST_CPU_LOG === undefined ? [] : ["test/support/cpuPerFile.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // vitest's default on this 2-CPU machine is one file at a time (CPUs - 1), which left a CPU
    // idle while a test waited on the service or a timer; two at a time use both (docs/benchmarks.md)
    maxWorkers: 2,
    minWorkers: 1,
    reporters: ["default"]
  }
})
