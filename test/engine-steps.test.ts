/**
 * The engine's strategy steps from specs, against real strategies on fresh tables: what each record says
 * about its step's span. Assertions are relations between records (sent before, completed after), never
 * a timing.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadStrategy } from '../harness/contracts/reservation/designs/registry.ts';
import { RESERVATION_VERBS } from '../harness/contracts/reservation/spec/reservation-verbs.ts';
import { waitUntil } from '../harness/database/poll-until.ts';
import { runPermutation } from '../harness/interleaving/engine.ts';
import { harnessNow } from '../harness/interleaving/harness-clock.ts';
import type { StepRecord } from '../harness/interleaving/permutation.ts';
import { parseSpec } from '../harness/interleaving/spec-parser.ts';
import type { ReserveResult, StockLine, Strategy } from '../strategies/contract.ts';
import { useRunDatabase } from './db-fixture.ts';
import { runCli } from './run-cli.ts';

const { db, admin } = useRunDatabase();

interface SpecRunOptions {
  clockWait?: (ms: number) => number;
  /** The design as the steps call it: the loaded one changed, for a fixture. */
  alter?: (strategy: Strategy) => Strategy;
  timeoutMs?: number;
}

/** The spec's one permutation, run against `strategy` on fresh tables holding `stock`. */
async function runSpecOn(
  strategyId: string,
  stock: readonly StockLine[],
  lines: readonly string[],
  { clockWait, alter, timeoutMs = 20_000 }: SpecRunOptions = {},
): Promise<Map<string, StepRecord>> {
  const loaded = (await loadStrategy(strategyId)).strategy;
  const strategy = alter ? alter(loaded) : loaded;
  const schema = await db().createCaseSchema(`steps ${strategyId}`);
  await admin().query(`SET search_path TO ${schema}`);
  try {
    await strategy.setup(admin(), stock);
  } finally {
    await admin().query('RESET search_path');
  }
  const [permutation] = parseSpec(lines.join('\n'), 'steps.spec', [RESERVATION_VERBS]).permutations;
  if (!permutation) throw new Error('the spec lists no permutation');
  const records = await runPermutation(permutation, {
    connectionString: db().connectionString,
    schema,
    contract: { verbs: RESERVATION_VERBS, design: strategy },
    timeoutMs,
    ...(clockWait ? { clockWait } : {}),
  });
  return new Map(records.map((r) => [r.step, r]));
}

function recordOf(records: Map<string, StepRecord>, step: string): StepRecord {
  const record = records.get(step);
  if (!record) throw new Error(`no record of step ${step}`);
  return record;
}

const completedAt = (record: StepRecord): number => {
  if (record.completedAt === undefined) throw new Error(`step ${record.step} never completed`);
  return record.completedAt;
};

describe('step records: when each step was sent and when its outcome arrived', () => {
  it('a paused reserve completes at its pause, its RESUME at the end; a blocked step after its release', async () => {
    const before = harnessNow();
    const records = await runSpecOn(
      'hot-row',
      [{ sku: 'sku-lab-01', total: 2 }],
      [
        'session t1',
        'step "t1-take" { RESERVE req-t1 user-0001 sku-lab-01 UNTIL before-commit }',
        'step "t1-rollback" { RESUME ROLLBACK }',
        'session t2',
        'step "t2-take" { RESERVE req-t2 user-0002 sku-lab-01 }',
        'permutation "t1-take" "t2-take" "t1-rollback"',
      ],
    );
    const after = harnessNow();
    const take = recordOf(records, 't1-take');
    const queued = recordOf(records, 't2-take');
    const rollback = recordOf(records, 't1-rollback');
    for (const record of [take, queued, rollback]) {
      // The harness clock is absolute: these are the times this test read around the run.
      expect(record.sentAt).toBeGreaterThanOrEqual(before);
      expect(completedAt(record)).toBeGreaterThanOrEqual(record.sentAt);
      expect(completedAt(record)).toBeLessThanOrEqual(after);
    }
    expect(take.result).toMatchObject({ paused: 'before-commit' });
    // The paused step's record ended at the pause, before its RESUME was sent.
    expect(completedAt(take)).toBeLessThanOrEqual(rollback.sentAt);
    expect(rollback.result).toMatchObject({ rolledBack: true });
    // t2 queued on t1's row lock: its answer came only after the rollback that let it go was sent.
    expect(queued).toMatchObject({ blocked: true, result: { answer: { outcome: 'HELD' } } });
    expect(completedAt(queued)).toBeGreaterThanOrEqual(rollback.sentAt);
  });
});

const LAB = (total: number): StockLine[] => [{ sku: 'sku-lab-01', total }];

describe('a step that reports an error while its backend still runs a statement', () => {
  it('fails the permutation as not exercised at the deadline instead of going on as if idle', async () => {
    // The fixture's reserve leaves a statement running on its connection and answers with an error.
    const leavesAStatementRunning = (strategy: Strategy): Strategy => ({
      ...strategy,
      reserve: async (ctx) => {
        const { rows } = await ctx.db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        void ctx.db.query('SELECT pg_sleep(3)').catch(() => undefined);
        const running = "SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND state = 'active'";
        await waitUntil('the fixture statement running', 10_000, async () => {
          return ((await admin().query(running, [rows[0]?.pid])).rowCount ?? 0) > 0;
        });
        throw new Error('the fixture gave up with its statement still running');
      },
    });
    const run = runSpecOn(
      'hot-row',
      LAB(1),
      [
        'session t1',
        'step "t1-take" { RESERVE req-t1 user-0001 sku-lab-01 }',
        'session t2',
        'step "t2-left" { REMAINING sku-lab-01 }',
        'permutation "t1-take" "t2-left"',
      ],
      { alter: leavesAStatementRunning, timeoutMs: 400 },
    );
    await expect(run).rejects.toThrow(
      /^not exercised: step t1-take reported an error, but its backend still ran/,
    );
  });
});

describe('STATUS and REMAINING', () => {
  it("read the strategy's own state on the session's connection: an uncommitted hold is not there yet", async () => {
    const records = await runSpecOn('hot-row', LAB(2), [
      'session t1',
      'step "t1-take" { RESERVE req-t1 user-0001 sku-lab-01 UNTIL before-commit }',
      'step "t1-commit" { RESUME COMMIT }',
      'session r',
      'step "r-status-before" { STATUS req-t1 }',
      'step "r-left-before" { REMAINING sku-lab-01 }',
      'step "r-status-after" { STATUS req-t1 }',
      'step "r-left-after" { REMAINING sku-lab-01 }',
      'permutation "t1-take" "r-status-before" "r-left-before" "t1-commit" "r-status-after" "r-left-after"',
    ]);
    const value = (step: string) => recordOf(records, step).result;
    expect(recordOf(records, 'r-status-before')).toMatchObject({ requestKey: 'req-t1', blocked: false });
    expect(value('r-status-before')).toEqual({ status: 'ok', value: 'NOT_FOUND' });
    expect(value('r-left-before')).toEqual({ status: 'ok', value: 2 });
    expect(value('r-status-after')).toEqual({ status: 'ok', value: 'HELD' });
    expect(value('r-left-after')).toEqual({ status: 'ok', value: 1 });
  });
});

describe('WAIT', () => {
  it('completes once the database clock has passed it: a 300 ms hold has expired, a 60 s one has not', async () => {
    const records = await runSpecOn('hot-row', LAB(2), [
      'session t1',
      'step "short" { RESERVE req-short user-0001 sku-lab-01 TTL 300 }',
      'step "long" { RESERVE req-long user-0002 sku-lab-01 TTL 60000 }',
      'step "later" { WAIT 400 }',
      'step "expire" { EXPIRE }',
      'step "short-now" { STATUS req-short }',
      'step "long-now" { STATUS req-long }',
      'permutation "short" "long" "later" "expire" "short-now" "long-now"',
    ]);
    expect(recordOf(records, 'later').result).toEqual({ status: 'ok' });
    expect(recordOf(records, 'expire').result).toEqual({ status: 'ok', value: 1 });
    expect(recordOf(records, 'short-now').result).toMatchObject({ value: 'EXPIRED' });
    expect(recordOf(records, 'long-now').result).toMatchObject({ value: 'HELD' });
  });

  it('waits as far as clockWait says: the margin a history needs is waited on the database clock too', async () => {
    const lines = [
      'session t1',
      'step "hold" { RESERVE req-hold user-0001 sku-lab-01 TTL 600 }',
      'step "later" { WAIT 100 }',
      'step "expire" { EXPIRE }',
      'permutation "hold" "later" "expire"',
    ];
    const unitsBack = (records: Map<string, StepRecord>) => recordOf(records, 'expire').result;
    expect(unitsBack(await runSpecOn('hot-row', LAB(1), lines))).toEqual({ status: 'ok', value: 0 });
    const widened = await runSpecOn('hot-row', LAB(1), lines, { clockWait: (ms) => ms + 600 });
    expect(unitsBack(widened)).toEqual({ status: 'ok', value: 1 });
  });
});

describe('nodes: ON i/n and RESTART i/n', () => {
  // 2 units over 2 nodes: a share of 1 each, kept in memory per node incarnation.
  const twoNodes = (restart: boolean) => [
    'session a',
    'step "a-take" { RESERVE req-a user-0001 sku-lab-01 ON 1/2 }',
    'step "a-again" { RESERVE req-a2 user-0002 sku-lab-01 ON 1/2 }',
    'session b',
    'step "b-take" { RESERVE req-b user-0003 sku-lab-01 ON 2/2 }',
    'step "b-restart" { RESTART 1/2 }',
    'session c',
    'step "c-after" { RESERVE req-c user-0004 sku-lab-01 ON 1/2 }',
    `permutation "a-take" "a-again" "b-take"${restart ? ' "b-restart"' : ''} "c-after"`,
  ];
  const outcome = (records: Map<string, StepRecord>, step: string) => {
    const { result } = recordOf(records, step);
    return result.status === 'ok' ? (result.answer as ReserveResult | undefined)?.outcome : result.error;
  };

  it.each([
    ['memory-quota-config-restart', false, 'SOLD_OUT'],
    ['memory-quota-config-restart', true, 'HELD'],
    ['memory-quota', true, 'SOLD_OUT'],
  ] as const)(
    '%s, node 1 restarted: %s → node 1 answers %s after selling its share',
    async (id, restart, after) => {
      const records = await runSpecOn(id, LAB(2), twoNodes(restart));
      expect(outcome(records, 'a-take')).toBe('HELD');
      // Node 1's share is spent; node 2 still has its own.
      expect(outcome(records, 'a-again')).toBe('SOLD_OUT');
      expect(outcome(records, 'b-take')).toBe('HELD');
      // A restart from the configured share sells it again (the control's oversell); one that rebuilds
      // from the ledger does not; without a restart the node's memory is as it was.
      expect(outcome(records, 'c-after')).toBe(after);
    },
  );
});

describe('RESUME KILL', () => {
  it('terminates the paused backend: its lock goes, the hold rolls back, the session goes on on a new connection', async () => {
    const records = await runSpecOn('hot-row', LAB(1), [
      'session t1',
      'step "t1-take" { RESERVE req-t1 user-0001 sku-lab-01 UNTIL before-commit }',
      'step "t1-kill" { RESUME KILL }',
      'step "t1-status" { STATUS req-t1 }',
      'step "t1-again" { RESERVE req-t1b user-0003 sku-lab-01 }',
      'session t2',
      'step "t2-take" { RESERVE req-t2 user-0002 sku-lab-01 }',
      'permutation "t1-take" "t2-take" "t1-kill" "t1-status" "t1-again"',
    ]);
    expect(recordOf(records, 't1-kill')).toMatchObject({
      requestKey: 'req-t1',
      result: { status: 'error', killed: true, sqlstate: '57P01' },
    });
    // t2 waited on t1's row lock, which the terminated backend let go of, with its decrement undone.
    expect(recordOf(records, 't2-take')).toMatchObject({
      blocked: true,
      result: { answer: { outcome: 'HELD' } },
    });
    expect(completedAt(recordOf(records, 't2-take'))).toBeGreaterThanOrEqual(
      recordOf(records, 't1-kill').sentAt,
    );
    expect(recordOf(records, 't1-status').result).toEqual({ status: 'ok', value: 'NOT_FOUND' });
    expect(recordOf(records, 't1-again').result).toMatchObject({ answer: { outcome: 'SOLD_OUT' } });
  });

  it("restarts the operation's node: memory-quota's unit taken in memory, never written, is back", async () => {
    const records = await runSpecOn('memory-quota', LAB(2), [
      'session t1',
      'step "t1-take" { RESERVE req-t1 user-0001 sku-lab-01 UNTIL after-memory-before-ledger ON 2/2 }',
      'step "t1-kill" { RESUME KILL }',
      'session t2',
      'step "t2-take" { RESERVE req-t2 user-0002 sku-lab-01 ON 2/2 }',
      'permutation "t1-take" "t1-kill" "t2-take"',
    ]);
    expect(recordOf(records, 't1-take').result).toMatchObject({ paused: 'after-memory-before-ledger' });
    expect(recordOf(records, 't1-kill').result).toMatchObject({ killed: true });
    // Node 2's share is 1; the killed sale took it in memory only. The restarted node rebuilds its count
    // from the ledger, where the sale never got: the unit sells again.
    expect(recordOf(records, 't2-take').result).toMatchObject({ answer: { outcome: 'HELD' } });
  });
});

describe('reservebench spec and the steps of the engine', () => {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'reservebench-engine-steps-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const specFile = (name: string, lines: readonly string[]) => {
    const path = join(dir, name);
    writeFileSync(path, `${lines.join('\n')}\n`);
    return path;
  };

  it('runs WAIT as the tester prints a step: its text, then what the following steps saw', async () => {
    const path = specFile('wait.spec', [
      'setup { CREATE TABLE stamp (at timestamptz); INSERT INTO stamp VALUES (clock_timestamp()); }',
      'teardown { DROP TABLE stamp; }',
      'session s1',
      'step "later" { WAIT 200 }',
      'step "passed" { SELECT clock_timestamp() - at >= interval \'200 ms\' AS passed FROM stamp; }',
      'permutation "later" "passed"',
    ]);
    const run = await runCli(['spec', path], { DATABASE_URL: inject('serverUrl') });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(
      [
        'Parsed test spec with 1 sessions',
        '',
        'starting permutation: later passed',
        'step later: WAIT 200',
        "step passed: SELECT clock_timestamp() - at >= interval '200 ms' AS passed FROM stamp;",
        'passed',
        '------',
        't     ',
        '(1 row)',
        '',
        '',
      ].join('\n'),
    );
    expect(run.code).toBe(0);
  });

  it('refuses a step that needs a strategy in one line naming file, line and column', async () => {
    const path = specFile('status.spec', ['session s1', 'step "st" { STATUS req-1 }']);
    const run = await runCli(['spec', path], { DATABASE_URL: inject('serverUrl') });
    expect(run.stderr).toBe(
      `reservebench: ${path}:2:6: step "st" needs a strategy; \`reservebench spec\` runs SQL and WAIT steps only\n`,
    );
    expect(run.code).toBe(2);
  });

  it('refuses a malformed step of the engine the same way', async () => {
    const path = specFile('bad-wait.spec', ['session s1', 'step "w" { WAIT soon }']);
    const run = await runCli(['spec', path], { DATABASE_URL: inject('serverUrl') });
    expect(run.stderr).toBe(
      `reservebench: ${path}:2:17: WAIT must be a whole number of milliseconds, got "soon"\n`,
    );
    expect(run.code).toBe(2);
  });
});
