import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // says which suites a run without DATABASE_URL, REDIS_URL or ../shared/data skips
    globalSetup: ["test/support/notice.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    reporters: ["default"]
  }
})
