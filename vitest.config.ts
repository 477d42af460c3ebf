import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // One embedded server is shared; files run one after another so their clients never exceed its
    // max_connections, and timings of one file do not disturb another's interleavings.
    fileParallelism: false,
    testTimeout: 120_000,
    // The command lines the tests start fail cases on purpose: under GitHub Actions they must not annotate
    // the job that runs the tests, nor write its summary (harness/cli/ci-results.ts).
    env: { GITHUB_ACTIONS: '', GITHUB_STEP_SUMMARY: '' },
    hookTimeout: 60_000,
  },
});
