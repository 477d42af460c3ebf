/**
 * A step that makes progress is not stuck (issue "A gate that means the same everywhere", item 14): an
 * operation that retries instead of queueing on a lock is reported waiting, as a blocked one is, and the
 * permutation goes on; one that keeps starting statements keeps its deadline, within MOVING_STEP_TIMEOUTS
 * timeouts. Seen on the database (pg_stat_activity) or told by the operation (`ctx.retried`), never by time.
 */
import { describe, expect, inject, it } from 'vitest';
import type { ReserveStep } from '../harness/contracts/reservation/spec/reservation-steps.ts';
import { RESERVATION_VERBS } from '../harness/contracts/reservation/spec/reservation-verbs.ts';
import { MOVING_STEP_TIMEOUTS, runPermutation } from '../harness/interleaving/engine.ts';
import type { Step, StepRecord } from '../harness/interleaving/permutation.ts';
import { parseSpec } from '../harness/interleaving/spec-parser.ts';
import type { Strategy } from '../strategies/contract.ts';
import { useRunDatabase } from './db-fixture.ts';
import nowaitBackoff from './fixtures/honest/nowait-backoff.ts';
import { measured, runJson } from './run-cli.ts';

const serverUrl = inject('serverUrl');
const { db, admin } = useRunDatabase();

/** A fresh schema with `strategy` set up on 2 units, plus the table `go` the probes below wait for. */
async function schemaFor(strategy: Strategy): Promise<string> {
  const schema = await db().createCaseSchema(`retrying ${strategy.id}`);
  await admin().query(`SET search_path TO ${schema}`);
  try {
    await strategy.setup(admin(), [{ sku: 'sku-lab-01', total: 2 }]);
    await admin().query('CREATE TABLE go (released boolean NOT NULL); INSERT INTO go VALUES (false)');
  } finally {
    await admin().query('RESET search_path');
  }
  return schema;
}

async function run(strategy: Strategy, steps: Step[], timeoutMs: number): Promise<Map<string, StepRecord>> {
  const sessions = [...new Set(steps.map((s) => s.session))];
  const records = await runPermutation(
    { sessions, steps },
    {
      connectionString: db().connectionString,
      schema: await schemaFor(strategy),
      contract: { verbs: RESERVATION_VERBS, design: strategy },
      timeoutMs,
    },
  );
  return new Map(records.map((r) => [r.step, r]));
}

const reserve = (name: string, session: string, requestKey: string): ReserveStep => ({
  contract: 'reservation',
  verb: 'RESERVE',
  name,
  session,
  requestKey,
  node: { node: 1, of: 1 },
  reserve: { requestKey, user: `user-${requestKey}`, sku: 'sku-lab-01', ttlMs: 60_000 },
});
const release: Step = { name: 'release', session: 'other', sql: 'UPDATE go SET released = true' };

/**
 * Probes of the rule: each reserve polls `go` inside ONE transaction (no new xact_start) and answers HELD
 * once another session has set it. `tellsRetries` calls ctx.retried before each poll; `pause` is how long
 * each poll's statement takes.
 */
function poller(id: string, options: { tellsRetries: boolean; pause: number }): Strategy {
  return {
    ...nowaitBackoff,
    id,
    async reserve(ctx) {
      await ctx.db.query('BEGIN');
      for (;;) {
        if (options.tellsRetries) ctx.retried?.('go not released');
        const { rows } = await ctx.db.query<{ released: boolean }>('SELECT released FROM go, pg_sleep($1)', [
          options.pause,
        ]);
        if (rows[0]?.released) break;
      }
      await ctx.db.query('COMMIT');
      return { outcome: 'HELD', status: 'HELD' };
    },
  };
}

describe('a step that makes progress is not stuck', () => {
  it('an operation that calls ctx.retried is reported waiting, and the next step is sent', async () => {
    const probe = poller('tells-retries', { tellsRetries: true, pause: 0.01 });
    const r = await run(probe, [reserve('ask', 'asker', 'k1'), release], 5_000);
    expect(r.get('ask')).toMatchObject({
      blocked: false,
      retrying: true,
      result: { answer: { outcome: 'HELD' } },
    });
    // It could only end after the release: the engine sent that while the reserve was still retrying.
    expect(r.get('ask')?.completedAt).toBeGreaterThanOrEqual(r.get('release')?.sentAt ?? Infinity);
  });

  it('an operation that keeps starting statements keeps its deadline, and is not reported waiting', async () => {
    // Each poll takes 100 ms, ten times less than the timeout; twelve polls, 1.2 s, outlast it.
    let polls = 0;
    const probe: Strategy = {
      ...nowaitBackoff,
      id: 'slow-but-moving',
      async reserve(ctx) {
        await ctx.db.query('BEGIN');
        for (; polls < 12; polls++) await ctx.db.query('SELECT pg_sleep(0.1)');
        await ctx.db.query('COMMIT');
        return { outcome: 'HELD', status: 'HELD' };
      },
    };
    const r = await run(probe, [reserve('slow', 'asker', 'k1'), release], 1_000);
    expect(polls).toBe(12);
    expect(r.get('slow')).toMatchObject({ blocked: false, retrying: false, result: { status: 'ok' } });
    // Not reported waiting: the release was sent only once the slow step had completed.
    expect(r.get('release')?.sentAt).toBeGreaterThanOrEqual(r.get('slow')?.completedAt ?? Infinity);
  });

  it('one that only keeps starting statements is stuck after MOVING_STEP_TIMEOUTS timeouts', async () => {
    // Each poll a new statement, none waiting on the release the permutation could send only after it.
    const probe = poller('moving', { tellsRetries: false, pause: 0.05 });
    const seconds = (MOVING_STEP_TIMEOUTS * 300) / 1000;
    await expect(run(probe, [reserve('moving', 'asker', 'k1'), release], 300)).rejects.toThrow(
      `step moving, starting statements all along, did not complete within ${seconds} s`,
    );
  });

  it('one that neither completes, nor waits, nor starts a statement for the whole timeout is stuck', async () => {
    const probe = poller('silent', { tellsRetries: false, pause: 2 });
    await expect(run(probe, [reserve('silent', 'asker', 'k1'), release], 500)).rejects.toThrow(
      /step silent did not complete within 0.5 s: a session cannot make progress/,
    );
  });

  it('FOR UPDATE NOWAIT with back-off, which never tells: seen in new transactions, it is retrying', async () => {
    const [permutation] = parseSpec(
      [
        'session t1',
        'step "t1-take" { RESERVE req-t1 user-0001 sku-lab-01 UNTIL before-commit }',
        'step "t1-rollback" { RESUME ROLLBACK }',
        'session t2',
        'step "t2-take" { RESERVE req-t2 user-0002 sku-lab-01 }',
        'permutation "t1-take" "t2-take" "t1-rollback"',
      ].join('\n'),
      'nowait.spec',
      [RESERVATION_VERBS],
    ).permutations;
    if (!permutation) throw new Error('no permutation');
    const records = await runPermutation(permutation, {
      connectionString: db().connectionString,
      schema: await schemaFor(nowaitBackoff),
      contract: { verbs: RESERVATION_VERBS, design: nowaitBackoff },
      timeoutMs: 5_000,
    });
    const by = new Map(records.map((r) => [r.step, r]));
    expect(by.get('t2-take')).toMatchObject({
      blocked: false,
      retrying: true,
      result: { answer: { outcome: 'HELD' } },
    });
    expect(by.get('t2-take')?.completedAt).toBeGreaterThanOrEqual(by.get('t1-rollback')?.sentAt ?? Infinity);
  });
});

describe('false-sold-out through the suite, for a design that retries instead of waiting', () => {
  it('nowait-backoff passes: t2 and t3 retry until t1 rolls back, then both are HELD — every run', async () => {
    const { run, report } = await runJson(serverUrl, [
      '--scenario',
      'false-sold-out',
      '--strategy',
      'test/fixtures/honest/nowait-backoff.ts',
      '--repeat',
      '3',
    ]);
    for (let n = 1; n <= 3; n++) {
      const c = measured(report.cases, `false-sold-out/nowait-backoff#${n}`);
      expect(c.status, c.boundary).toBe('pass');
      const step = (name: string) => c.steps?.find((s) => s.step === name);
      expect(step('t1-take')?.result).toMatchObject({ paused: 'before-commit' });
      for (const asking of ['t2-take', 't3-ask']) {
        // Retrying, not blocked: the scenario's blocking expectations see no lock wait.
        expect(step(asking), asking).toMatchObject({
          blocked: false,
          retrying: true,
          result: { answer: { outcome: 'HELD' } },
        });
      }
      expect(step('t1-rollback')?.result).toMatchObject({ rolledBack: true });
      expect(c.outcomes).toEqual({ HELD: 2, ROLLED_BACK: 1 });
      expect(c.invariants).toMatchObject({ total: 2, available: 0, active: 2, drift: 0, falseSoldOut: 0 });
    }
    expect(run.code).toBe(0);
  });
});
