import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // the run's temporary files on the RAM disk; says which suites a run without DATABASE_URL, REDIS_URL
    // or ../shared/data skips; `npm start`'s build, which the services started as processes run; one
    // migrated embedded database to copy
    globalSetup: [
      "test/support/ramDisk.ts",
      "test/support/notice.ts",
      "test/support/serviceBuild.ts",
      "test/support/pgliteTemplate.ts"
    ],
    // the service's worker threads from that build (builtWorkers.ts); with `VIGIL_TEST_CPU_LOG=<file>`,
    // each test file's CPU appended to that file (test/support/cpuPerFile.ts)
    setupFiles: [
      "test/support/builtWorkers.ts",
      ...(process.env.VIGIL_TEST_CPU_LOG === undefined ? [] : ["test/support/cpuPerFile.ts"])
    ],
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
