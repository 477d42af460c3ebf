import { defineConfig } from 'vitest/config';

/**
 * The test files that need no database server, run without the global setup that starts the embedded one
 * (so without the heavy lock). test/fast-tier.test.ts holds both lists to what the files use: a file that
 * comes to need a server, or to start the command line per case, fails it while it is listed here.
 */

/** In process, seconds in all: `npm run test:fast`, the inner loop. */
export const FAST_TEST_FILES: readonly string[] = [
  'test/admission.test.ts',
  'test/barrier.test.ts',
  'test/box-table.test.ts',
  'test/case-matrix.test.ts',
  'test/bench-report.test.ts',
  'test/burst-measure.test.ts',
  'test/charts.test.ts',
  'test/child-argv.test.ts',
  'test/cli-bundle.test.ts',
  'test/cli-startup.test.ts',
  'test/cluster-example-docs.test.ts',
  'test/config-resolve.test.ts',
  'test/contract-catalog.test.ts',
  'test/contract-names.test.ts',
  'test/contract-rules.test.ts',
  'test/crash-child.test.ts',
  'test/docs.test.ts',
  'test/explore-batches.test.ts',
  'test/explore-program.test.ts',
  'test/explore-scope.test.ts',
  'test/fast-tier.test.ts',
  'test/generated-output.test.ts',
  'test/history-checker.test.ts',
  'test/invariants.test.ts',
  'test/junit.test.ts',
  'test/layout.test.ts',
  'test/local-cluster.test.ts',
  'test/node-count.test.ts',
  'test/payment-history-checker.test.ts',
  'test/payment-invariants.test.ts',
  'test/payment-module.test.ts',
  'test/open-model.test.ts',
  'test/order-model.test.ts',
  'test/plugin-exit.test.ts',
  'test/poll-until.test.ts',
  'test/postgres-minimum.test.ts',
  'test/probes.test.ts',
  'test/capability-needs.test.ts',
  'test/case-deadline.test.ts',
  'test/case-lanes.test.ts',
  'test/redact.test.ts',
  'test/run-ok.test.ts',
  'test/source-manifest.test.ts',
  'test/source-names.test.ts',
  'test/sqlstate.test.ts',
  'test/sql-design-header.test.ts',
  'test/strategy-variants.test.ts',
  'test/suite-work.test.ts',
  'test/yardstick.test.ts',
];

/** The real command line, refused before it starts anything, once per case: minutes on 2 cores. */
export const COMMAND_LINE_TEST_FILES: readonly string[] = [
  'test/cli-arguments.test.ts',
  'test/input-fuzz.test.ts',
  'test/report-command.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 120_000,
    // The command lines the tests start fail cases on purpose: under GitHub Actions they must not annotate
    // the job that runs the tests, nor write its summary (harness/cli/ci-results.ts).
    env: { GITHUB_ACTIONS: '', GITHUB_STEP_SUMMARY: '' },
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'fast', include: [...FAST_TEST_FILES] } },
      { extends: true, test: { name: 'command-line', include: [...COMMAND_LINE_TEST_FILES] } },
    ],
  },
});
