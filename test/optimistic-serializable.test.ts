/**
 * optimistic-cas and serializable (the isolation-matrix chapter's designs) through every scenario on the real
 * command line, their controls caught, and their retries reported. Only relations that hold on every run are
 * asserted: in `contention` all 150 clients read before any writes, so at most one first attempt can land and
 * every other client must retry at least once; how many times each retries is left to the scheduler. The
 * give-up path is driven directly, with a write that never lands and a 40001 forced at before-commit.
 */
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { failsTheRun } from '../harness/verdict/case-result.ts';
import type { PausePoint, Strategy } from '../strategies/contract.ts';
import optimisticCas, { reserveOptimistically } from '../strategies/optimistic-cas.ts';
import serializable from '../strategies/serializable.ts';
import { MAX_ATTEMPTS } from '../strategies/support/retry-bound.ts';
import { useRunDatabase } from './db-fixture.ts';
import { DEFAULT_RUN_TIMEOUT_MS, defaultRunOf, SCENARIOS_WITHOUT_CLUSTER } from './default-run.ts';
import { measured, runJson } from './run-cli.ts';

const serverUrl = inject('serverUrl');

const DESIGNS = ['optimistic-cas', 'serializable'] as const;
const CLIENTS = 150;
const STOCK = 40;

const sum = (counts: Record<string, number> | undefined) =>
  Object.values(counts ?? {}).reduce((a, b) => a + b, 0);

describe('optimistic-cas and serializable', () => {
  it(
    'pass every scenario, are n/a only for an operation they lack, and report their retries',
    async () => {
      const { run, report } = await defaultRunOf(DESIGNS);

      expect(report.cases).toHaveLength(DESIGNS.length * SCENARIOS_WITHOUT_CLUSTER.length);
      expect(report.cases.filter(failsTheRun).map((c) => `${c.id}: ${c.boundary}`)).toEqual([]);
      for (const c of report.cases) {
        if (c.status === 'n/a') {
          expect(c.reason.trim(), c.id).not.toBe('');
          // Only a scenario that must restart the server sits out for a reason outside the design.
          if (!/no way to restart/.test(c.reason)) expect(c.coverage.missing, c.id).not.toEqual([]);
        } else {
          expect(c.status, c.id).toBe('pass');
        }
        // The bound is far above what any scenario needs: no request gives up but where give-up sets it
        // to 2 and makes both rounds lose.
        if (c.scenario !== 'give-up') expect(c.outcomes.GAVE_UP, c.id).toBeUndefined();
      }
      for (const id of DESIGNS) {
        const c = measured(report.cases, `give-up/${id}`);
        expect(c.outcomes).toEqual({ HELD: 2, GAVE_UP: 1 });
        expect(c.observations).toEqual({ bound: 2, lost: 2, answer: 'GAVE_UP' });
        expect(c.sellsWhatRemains).toEqual([
          { sku: 'sku-lab-01', expected: 8, sold: 8, answers: { HELD: 8, SOLD_OUT: 1 } },
        ]);
      }

      for (const id of DESIGNS) {
        const c = measured(report.cases, `contention/${id}`);
        expect(c.outcomes).toEqual({ HELD: STOCK, SOLD_OUT: CLIENTS - STOCK });
        expect(c.invariants).toMatchObject({ oversold: 0, drift: 0 });
        expect(c.sqlstates).toBeUndefined();
        expect(sum(c.retries), id).toBeGreaterThanOrEqual(CLIENTS - 1);
      }
      expect(Object.keys(measured(report.cases, 'contention/optimistic-cas').retries ?? {})).toEqual([
        'version',
      ]);
      const serializableReasons = Object.keys(
        measured(report.cases, 'contention/serializable').retries ?? {},
      );
      expect(serializableReasons).toContain('40001');
      expect(serializableReasons.filter((r) => r !== '40001' && r !== '40P01')).toEqual([]);

      expect(report.ok).toBe(true);
      expect(run.code).toBe(0);
    },
    DEFAULT_RUN_TIMEOUT_MS,
  );

  it('cas-without-version is caught by oversold in contention: every stale write lands', async () => {
    const { run, report } = await runJson(serverUrl, [
      '--strategy',
      'strategies/controls/cas-without-version.ts',
    ]);
    const c = measured(report.cases, 'contention/cas-without-version');
    expect(c).toMatchObject({ expect: 'violate', status: 'pass', outcomes: { HELD: CLIENTS } });
    expect(c.fired).toContain('oversold');
    expect(c.invariants.oversold).toBe(CLIENTS - STOCK);
    // Nothing is compared, so nothing is ever retried.
    expect(c.retries).toBeUndefined();
    for (const other of report.cases.filter((x) => x.scenario !== 'contention')) {
      expect(other.status, other.id).toBe('n/a');
    }
    expect(report.ok).toBe(true);
    expect(run.code).toBe(0);
  });

  it('serializable without its retry loop fails contention on its 40001s, and the run exits 1', async () => {
    const { run, report } = await runJson(serverUrl, [
      '--strategy',
      'test/fixtures/serializable-no-retry.ts',
      '--scenario',
      'contention',
    ]);
    const c = measured(report.cases, 'contention/serializable-no-retry');
    expect(c.status).toBe('fail');
    expect(c.fired).toContain('errors');
    const { HELD = 0, ERROR = 0, ...others } = c.outcomes;
    expect(others).toEqual({});
    expect(HELD + ERROR).toBe(CLIENTS);
    // Every snapshot predates every write: one first updater of the stock row at most can commit.
    expect(HELD).toBeLessThanOrEqual(1);
    expect(c.sqlstates).toEqual({ '40001': ERROR });
    expect(c.retries).toBeUndefined();
    expect(report.ok).toBe(false);
    expect(run.code).toBe(1);
  });
});

describe('a retry loop that runs out answers GAVE_UP with nothing written', () => {
  const { db, admin } = useRunDatabase();
  const request = { requestKey: 'req-gave-up', user: 'user-0001', sku: 'sku-lab-01', ttlMs: 60_000 };
  const sessions: pg.Client[] = [];
  afterAll(() => Promise.all(sessions.map((s) => s.end())));

  const sessionOn = async (strategy: Strategy): Promise<pg.Client> => {
    const schema = await db().createCaseSchema(`gave up ${strategy.id}`);
    await admin().query(`SET search_path TO ${schema}`);
    try {
      await strategy.setup(admin(), [{ sku: request.sku, total: 5 }]);
    } finally {
      await admin().query('RESET search_path');
    }
    const session = new pg.Client({
      connectionString: db().connectionString,
      options: `-c search_path=${schema}`,
    });
    await session.connect();
    sessions.push(session);
    return session;
  };

  it('optimistic-cas, when every version check is lost', async () => {
    const session = await sessionOn(optimisticCas);
    const retries: string[] = [];
    const neverLands = reserveOptimistically(async () => false);
    const answer = await neverLands(
      { db: session, pause: async () => undefined, retried: (reason) => retries.push(reason) },
      request,
    );
    expect(answer).toEqual({ outcome: 'GAVE_UP' });
    expect(retries).toEqual(Array(MAX_ATTEMPTS - 1).fill('version'));
    expect(await optimisticCas.status(session, request.requestKey)).toBe('NOT_FOUND');
    expect(await optimisticCas.remaining(session, request.sku)).toBe(5);
  });

  it('serializable, when every attempt fails with 40001 after its writes', async () => {
    const session = await sessionOn(serializable);
    const retries: string[] = [];
    const failAtCommit = async (point: PausePoint) => {
      if (point === 'before-commit')
        throw Object.assign(new Error('serialization failure'), { code: '40001' });
    };
    const answer = await serializable.reserve(
      { db: session, pause: failAtCommit, retried: (reason) => retries.push(reason) },
      request,
    );
    expect(answer).toEqual({ outcome: 'GAVE_UP' });
    expect(retries).toEqual(Array(MAX_ATTEMPTS - 1).fill('40001'));
    expect(await serializable.status(session, request.requestKey)).toBe('NOT_FOUND');
    expect(await serializable.remaining(session, request.sku)).toBe(5);
  });
});
