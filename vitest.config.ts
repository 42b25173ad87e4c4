import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Provides TEST_DATABASE_URL (starting an embedded PostgreSQL if needed).
    globalSetup: ["test/global-setup.ts"],
    // Child processes rather than threads: tests start servers and databases,
    // and native handles / process-wide hooks are safer isolated per process.
    pool: "forks",
    // Files run in parallel (each gets its own database), capped at the
    // machine's 2 cores.
    fileParallelism: true,
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
