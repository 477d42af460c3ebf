/**
 * What `reservebench init` writes for a reservation strategy: a design file started from a built-in one, its
 * imports pointing at the
 * installed package (`reservebench` for the contract, `reservebench/support/…` for the helpers the built-in
 * designs share), its id the file's name and its header a form to fill in; and a GitHub Actions workflow
 * that runs the suite on it, fails the job on exit 1 and keeps the JUnit file and the HTML report.
 */

import type { DesignStarter } from '../../../contract/contract.ts';

/** The built-in design's source, made a team's own. */
function starterDesign(source: string, from: string, id: string): string {
  const body = source
    .replace(/^\/\*\*[\s\S]*?\*\/\s*/, '')
    .replace(/from '(?:\.\.?\/)+contract\.ts'/g, "from 'reservebench'")
    .replace(/from '(?:\.\.?\/)+support\/([\w-]+)\.ts'/g, "from 'reservebench/support/$1'")
    .replace(/\bid: '[^']*'/, `id: '${id}'`)
    .replace(/\btitle: '[^']*'/, `title: '${id} (started from the built-in ${from})'`);
  return [
    '/**',
    ` * ${id} — started from reservebench's built-in ${from}; the header says what this design is, as every`,
    " * design of the suite's does (fill in each part; `npx reservebench run --strategy` judges it).",
    ' *',
    ' * How it stays correct: what makes a unit go to one request only, and an answer match what was written.',
    ' *',
    ' * When it breaks: the isolation level, the crash, the fault or the path on which it would not.',
    ' *',
    ' * Lifecycle: how confirm, release and expire move a reservation and give stock back exactly once.',
    ' *',
    ' * Pause points: where the harness may hold or kill a request (`pausePoints`), and what is written by then.',
    ' */',
    '',
    body,
  ].join('\n');
}

/** The workflow: the suite on the design, gating the job on the exit code; JUnit and the report kept. */
function starterWorkflow(designFile: string): string {
  return `# reservebench on ${designFile}: the job fails (exit 1) when the design breaks an invariant of the
# reservation contract in any scenario, and keeps the JUnit results and the HTML report for reviewers.
name: reservebench

on:
  pull_request:
  push:

jobs:
  reservebench:
    runs-on: ubuntu-latest
    timeout-minutes: 30
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 20
          cache: npm
      - run: npm ci
      - name: reservebench (exit 1 fails the job)
        run: npx reservebench run --strategy ./${designFile} --junit reports/junit.xml
      - uses: actions/upload-artifact@v4
        if: \${{ !cancelled() }}
        with:
          name: reservebench
          path: |
            reports/junit.xml
            reports/latest/report.html
            reports/latest/report.json
`;
}

export const RESERVATION_STARTER: DesignStarter = { design: starterDesign, workflow: starterWorkflow };
