import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Closing engines and worker pools after the last file: seconds, not minutes; a teardown that
    // hangs ends the run instead of holding CI.
    teardownTimeout: 30_000,
    // Engine tests start wasm engines in worker threads; two cores here.
    maxWorkers: 2,
    reporters: process.env.CI ? ['default'] : ['default'],
  },
});
