/**
 * Bad input gets one line and exit 2, an unreachable server exit 3, never a stack trace. The refusals run
 * in one child through the CLI's own main() (cli-batch-child.ts); five real spawns in cli-arguments.test.ts
 * show the binary answers as the batch does. `list` and `--help` start the binary itself.
 */
import { readdirSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { type Refusal, runRefusals } from './bounded-cli.ts';
import { helpCommands } from './cli-help.ts';
import { runCli } from './run-cli.ts';

function expectOneLine(stderr: string): void {
  const lines = stderr.trim().split('\n');
  expect(lines, stderr).toHaveLength(1);
  expect(stderr).not.toMatch(/\n\s+at /);
}

const BAD_INPUT: [string[], RegExp][] = [
  [
    ['run', '--strategy', 'hot-rod'],
    /unknown strategy "hot-rod"; choose one of: hot-row, skip-locked-slots, memory-quota, row-lock-count, /,
  ],
  [
    ['run', '--scenario', 'stampede'],
    /unknown scenario "stampede"; choose one of: backend-killed, commit-ack-lost, confirm-expire-race, /,
  ],
  [['run', '--clients', 'many'], /--clients must be a whole number from 1 to 250, got "many"/],
  [['run', '--clients', '100000'], /--clients must be a whole number from 1 to 250, got "100000"/],
  [['run', '--stock', '-3'], /--stock must be a whole number from 0 to/],
  [['run', '--no-such-flag'], /Unknown argument/],
  [
    ['run', '--cluster', 'nope'],
    /--cluster must be embedded, patroni, pg_auto_failover or command, got "nope"/,
  ],
  [['run', '--cluster', 'patroni', '--scenario', 'failover-sync'], /--cluster patroni needs --cluster-api/],
  [
    ['run', '--cluster', 'pg_auto_failover', '--scenario', 'failover-sync'],
    /--cluster pg_auto_failover needs --cluster-monitor/,
  ],
  [
    ['run', '--cluster', 'pg_auto_failover', '--cluster-monitor', 'http://127.0.0.1:5000'],
    /--cluster-monitor must be a postgres:\/\/ or postgresql:\/\/ URL, got "http:\/\/127.0.0.1:5000\/"/,
  ],
  [
    ['run', '--cluster', 'command', '--scenario', 'switchover'],
    /needs --cluster-failover or --cluster-switchover/,
  ],
  [['run', '--cluster-api', 'http://127.0.0.1:8008'], /--cluster-api needs --cluster/],
  [
    ['run', '--cluster', 'command', '--cluster-failover', 'true', '--cluster-url', 'mysql://u:pw1@h:1,h:2/x'],
    /--cluster-url must be a postgres:\/\/ or postgresql:\/\/ URL, got something that is not a URL/,
  ],
];

const COMMANDS: [string[], RegExp][] = [
  [[], /^reservebench: name a command: (.+)\n$/],
  [['fly'], /^reservebench: unknown command "fly"; choose one of: (.+)\n$/],
];

const DATABASE_PROBLEMS = {
  unreachable: 'postgresql://nobody:secret1@127.0.0.1:1/none?password=secret2&sslpassword=secret3',
  notPostgres: 'mysql://nobody:secret1@127.0.0.1/none?password=secret2',
  plain: 'postgresql://nobody@127.0.0.1:1/none',
} as const;

type Problem = keyof typeof DATABASE_PROBLEMS;
const PROBLEMS = Object.keys(DATABASE_PROBLEMS) as Problem[];

let answers: Refusal[] = [];
const answerOf = (index: number): Refusal => {
  const answer = answers[index];
  if (!answer) throw new Error(`no answer for case ${index}`);
  return answer;
};
const badInput = (i: number) => answerOf(i);
const command = (i: number) => answerOf(BAD_INPUT.length + i);
const databaseProblem = (problem: Problem) =>
  answerOf(BAD_INPUT.length + COMMANDS.length + PROBLEMS.indexOf(problem));

beforeAll(async () => {
  const cases = [
    ...BAD_INPUT.map(([args]) => ({ args })),
    ...COMMANDS.map(([args]) => ({ args })),
    ...PROBLEMS.map((problem) => ({ args: ['run'], env: { DATABASE_URL: DATABASE_PROBLEMS[problem] } })),
  ];
  ({ answers } = await runRefusals(cases));
}, 120_000);

describe('bad input → exit 2 with one line naming the problem and the choices', () => {
  it.each(BAD_INPUT.map(([args, message], i) => [args, message, i] as const))('%j', (_args, message, i) => {
    const run = badInput(i);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expectOneLine(run.stderr);
  });
});

/** A plug-in module is loaded where its process.exit is watched: these run as the binary itself. */
describe('a strategy module that is no strategy → exit 2 with one line', () => {
  it.each([
    [
      ['run', '--strategy', 'test/fixtures/not-a-strategy.ts'],
      /not-a-strategy.ts is not a valid strategy: title is missing/,
    ],
    [['run', '--strategy', './nowhere/strategy.ts'], /strategy module not found: \.\/nowhere\/strategy\.ts/],
  ])('%j', async (args, message) => {
    const run = await runCli(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expectOneLine(run.stderr);
  });
});

describe('a missing or unknown command → exit 2 with one line naming every command --help lists', () => {
  it.each(COMMANDS.map(([args, message], i) => [args, message, i] as const))(
    '%j',
    async (_args, message, i) => {
      const commands = (await helpCommands()).map((c) => c.command);
      const run = command(i);
      expect(run.code).toBe(2);
      expectOneLine(run.stderr);
      const named = message.exec(run.stderr)?.[1]?.split(/, | or /);
      expect(named, run.stderr).toEqual(commands);
    },
  );
});

describe('database problems → exit 3', () => {
  it('names the unreachable server in one line, with no password in it', () => {
    const run = databaseProblem('unreachable');
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(
      /cannot reach PostgreSQL at postgresql:\/\/nobody:\*\*\*@127\.0\.0\.1:1\/[^?]*\?password=\*\*\*&sslpassword=\*\*\*:/,
    );
    expect(run.stderr).not.toContain('secret');
    expectOneLine(run.stderr);
  });

  it('says sslmode=require in one line, with no driver warning before it (the binary itself)', async () => {
    // A real process: the driver's warning is printed by Node on a later tick, after a batch case ended.
    const run = await runCli(['run'], {
      DATABASE_URL: 'postgresql://nobody@127.0.0.1:1/none?sslmode=require',
    });
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(
      /cannot reach PostgreSQL at postgresql:\/\/nobody@127\.0\.0\.1:1\/none\?sslmode=require/,
    );
    expectOneLine(run.stderr);
  });

  it('shows a URL that is not a postgres URL with its passwords masked (exit 2)', () => {
    const run = databaseProblem('notPostgres');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('got "mysql://nobody:***@127.0.0.1/none?password=***"');
    expect(run.stderr).not.toContain('secret');
    expectOneLine(run.stderr);
  });

  it('reads DATABASE_URL when no --database-url is given', () => {
    const run = databaseProblem('plain');
    expect(run.code).toBe(3);
    expectOneLine(run.stderr);
  });
});

describe('list and help', () => {
  it('lists strategies with expect and guarantee, and scenarios with what they drive', async () => {
    const run = await runCli(['list', '--json']);
    expect(run.code).toBe(0);
    type Listed = {
      id: string;
      designs: { id: string; expect: string; guarantee: string; knobs: { knob: string }[] }[];
      scenarios: { id: string; summary: string }[];
    };
    const { contracts } = JSON.parse(run.stdout) as { contracts: Listed[] };
    expect(contracts.map((c) => c.id)).toEqual(['reservation', 'payment', 'order']);
    const [reservation, payment] = contracts as [Listed, Listed];
    const listing = {
      strategies: reservation.designs,
      scenarios: reservation.scenarios,
      payments: payment.designs,
      paymentScenarios: payment.scenarios,
    };
    expect(listing.payments.map((d) => [d.id, d.expect])).toEqual([
      ['payment-on-conflict', 'hold'],
      ['payment-advisory-lock', 'hold'],
      ['payment-serializable', 'hold'],
      ['payment-external-call-inside', 'hold'],
      ['payment-check-then-insert', 'violate'],
      ['payment-no-fingerprint', 'violate'],
      ['payment-split-outbox', 'violate'],
      ['payment-attempt-id-unique', 'violate'],
      ['payment-pending-cache', 'violate'],
    ]);
    expect(listing.payments.filter((d) => d.knobs.length > 0).map((d) => [d.id, d.knobs])).toEqual([
      [
        'payment-external-call-inside',
        [{ knob: 'callMs', describe: expect.any(String), default: 800, min: 0, max: 10_000, explored: 0 }],
      ],
    ]);
    expect(listing.paymentScenarios.map((s) => s.id)).toEqual([
      'payment-commit-ack-lost',
      'payment-db-crash',
      'payment-duplicates',
      'payment-failover-async',
      'payment-failover-sync',
      'payment-kill-9',
      'payment-mismatch',
      'payment-order-flow',
      'payment-retry-in-flight',
      'payment-two-workers',
      'payment-worker-dies',
    ]);
    expect(listing.strategies.map((s) => [s.id, s.expect])).toEqual([
      ['hot-row', 'hold'],
      ['skip-locked-slots', 'hold'],
      ['memory-quota', 'hold'],
      ['row-lock-count', 'hold'],
      ['optimistic-cas', 'hold'],
      ['serializable', 'hold'],
      ['frozen-ledger', 'hold'],
      ['bucketed', 'hold'],
      ['coalesced', 'hold'],
      ['check-then-act', 'violate'],
      ['unconditional-expire', 'violate'],
      ['split-tx-release', 'violate'],
      ['no-active-index', 'violate'],
      ['memory-quota-config-restart', 'violate'],
      ['count-without-lock', 'violate'],
      ['cas-without-version', 'violate'],
      ['async-commit', 'violate'],
      ['local-commit', 'violate'],
      ['release-frozen-only', 'violate'],
      ['release-twice', 'violate'],
      ['bucketed-no-fallback', 'violate'],
      ['standby-stock-check', 'violate'],
      ['take-before-claim', 'violate'],
      ['confirm-off-the-books', 'violate'],
      ['give-up-releases-claim', 'violate'],
    ]);
    // One scenario per file in fixtures/reservation/scenarios/, listed by id.
    const files = readdirSync(new URL('../fixtures/reservation/scenarios/', import.meta.url))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => f.slice(0, -3))
      .sort();
    expect(listing.scenarios.map((s) => s.id)).toEqual(files);
    expect(files).toEqual(
      expect.arrayContaining(['contention', 'false-sold-out', 'lifecycle-matrix', 'http']),
    );
    for (const s of [
      ...listing.strategies.map((x) => x.guarantee),
      ...listing.scenarios.map((x) => x.summary),
    ]) {
      expect(s.length).toBeGreaterThan(10);
    }
  });

  it.each([['--help'], ['run', '--help'], ['list', '--help']])('%j prints usage', async (...args) => {
    const run = await runCli(args);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/reservebench/);
  });
});
