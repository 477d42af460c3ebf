/**
 * The interleaving engine against real locks: blocked steps are seen through pg_blocking_pids, never by
 * time. Assertions are on the recorded blocking, the SQLSTATEs and the final rows — never on which session
 * the deadlock detector picks.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { runPermutation } from '../harness/interleaving/engine.ts';
import type { Step, StepRecord } from '../harness/interleaving/permutation.ts';
import { SQLSTATE } from '../strategies/support/sqlstate.ts';
import { useRunDatabase } from './db-fixture.ts';

const { db, admin } = useRunDatabase();
let schema = '';

beforeEach(async () => {
  schema = await db().createCaseSchema('engine');
  await admin().query(`CREATE TABLE ${schema}.t (id int PRIMARY KEY, v int NOT NULL)`);
  await admin().query(`INSERT INTO ${schema}.t VALUES (1, 1), (2, 2)`);
});

const sql = (name: string, session: string, text: string): Step => ({ name, session, sql: text });

async function run(steps: Step[]): Promise<Map<string, StepRecord>> {
  const records = await runPermutation(
    { sessions: ['s1', 's2'], steps },
    { connectionString: db().connectionString, schema, timeoutMs: 20_000 },
  );
  return new Map(records.map((r) => [r.step, r]));
}

async function rows(): Promise<Record<number, number>> {
  const { rows } = await admin().query<{ id: number; v: number }>(
    `SELECT id, v FROM ${schema}.t ORDER BY id`,
  );
  return Object.fromEntries(rows.map((r) => [r.id, r.v]));
}

describe('interleaving engine', () => {
  it('records a step blocked by another session, then completed once the lock is released', async () => {
    const r = await run([
      sql('s1-begin', 's1', 'BEGIN'),
      sql('s1-update', 's1', 'UPDATE t SET v = v + 1 WHERE id = 1'),
      sql('s2-update', 's2', 'UPDATE t SET v = v + 10 WHERE id = 1'),
      sql('s1-commit', 's1', 'COMMIT'),
    ]);
    expect(r.get('s1-update')).toMatchObject({ blocked: false, result: { status: 'ok' } });
    expect(r.get('s2-update')).toMatchObject({ blocked: true, result: { status: 'ok' } });
    expect(r.get('s1-commit')).toMatchObject({ blocked: false, result: { status: 'ok' } });
    // s2 re-read the row after s1 committed: both increments landed.
    expect(await rows()).toEqual({ 1: 12, 2: 2 });
  });

  it('records no blocking when the sessions touch different rows', async () => {
    const r = await run([
      sql('s1-begin', 's1', 'BEGIN'),
      sql('s1-update', 's1', 'UPDATE t SET v = v + 1 WHERE id = 1'),
      sql('s2-begin', 's2', 'BEGIN'),
      sql('s2-update', 's2', 'UPDATE t SET v = v + 10 WHERE id = 2'),
      sql('s1-commit', 's1', 'COMMIT'),
      sql('s2-commit', 's2', 'COMMIT'),
    ]);
    expect([...r.values()].every((x) => !x.blocked && x.result.status === 'ok')).toBe(true);
    expect(await rows()).toEqual({ 1: 2, 2: 12 });
  });

  it('sees a deadlock end in exactly one 40P01 while the other session commits', async () => {
    const r = await run([
      sql('s1-begin', 's1', 'BEGIN'),
      sql('s2-begin', 's2', 'BEGIN'),
      sql('s1-row1', 's1', 'UPDATE t SET v = 100 WHERE id = 1'),
      sql('s2-row2', 's2', 'UPDATE t SET v = 200 WHERE id = 2'),
      sql('s1-row2', 's1', 'UPDATE t SET v = 101 WHERE id = 2'),
      sql('s2-row1', 's2', 'UPDATE t SET v = 201 WHERE id = 1'),
      sql('s1-commit', 's1', 'COMMIT'),
      sql('s2-commit', 's2', 'COMMIT'),
    ]);
    expect(r.get('s1-row2')?.blocked).toBe(true);
    const crossing = [r.get('s1-row2'), r.get('s2-row1')];
    const deadlocked = crossing.filter((x) => x?.result.status === 'error');
    expect(deadlocked).toHaveLength(1);
    expect(deadlocked[0]?.result).toMatchObject({ sqlstate: SQLSTATE.deadlockDetected });
    expect(crossing.filter((x) => x?.result.status === 'ok')).toHaveLength(1);
    // Only the survivor's two updates are in the table.
    const survivor = deadlocked[0]?.session === 's1' ? 's2' : 's1';
    expect(await rows()).toEqual(survivor === 's1' ? { 1: 100, 2: 101 } : { 1: 201, 2: 200 });
  });

  it('records NOWAIT as an immediate 55P03, not as blocked', async () => {
    const r = await run([
      sql('s1-begin', 's1', 'BEGIN'),
      sql('s1-lock', 's1', 'SELECT v FROM t WHERE id = 1 FOR UPDATE'),
      sql('s2-nowait', 's2', 'SELECT v FROM t WHERE id = 1 FOR UPDATE NOWAIT'),
      sql('s1-commit', 's1', 'COMMIT'),
    ]);
    expect(r.get('s2-nowait')).toMatchObject({
      blocked: false,
      result: { status: 'error', sqlstate: SQLSTATE.lockNotAvailable },
    });
    expect(await rows()).toEqual({ 1: 1, 2: 2 });
  });

  it('fails with a clear error when a permutation cannot progress', async () => {
    await expect(
      runPermutation(
        {
          sessions: ['s1', 's2'],
          steps: [
            sql('s1-begin', 's1', 'BEGIN'),
            sql('s1-lock', 's1', 'SELECT v FROM t WHERE id = 1 FOR UPDATE'),
            sql('s2-wait', 's2', 'UPDATE t SET v = 0 WHERE id = 1'),
          ],
        },
        { connectionString: db().connectionString, schema, timeoutMs: 300 },
      ),
    ).rejects.toThrow(/blocked step\(s\) s2-wait did not complete within 0.3 s/);
  });
});

describe('step records', () => {
  it('stamps each record when it was sent and when its outcome arrived: a session waits for its own', async () => {
    const r = await run([
      sql('s1-begin', 's1', 'BEGIN'),
      sql('s1-update', 's1', 'UPDATE t SET v = v + 1 WHERE id = 1'),
      sql('s2-update', 's2', 'UPDATE t SET v = v + 10 WHERE id = 1'),
      sql('s1-commit', 's1', 'COMMIT'),
    ]);
    const at = (step: string) => {
      const { sentAt, completedAt } = r.get(step) ?? {};
      if (sentAt === undefined || completedAt === undefined) throw new Error(`${step} has no times`);
      expect(completedAt).toBeGreaterThanOrEqual(sentAt);
      return { sentAt, completedAt };
    };
    expect(at('s1-update').sentAt).toBeGreaterThanOrEqual(at('s1-begin').completedAt);
    // Sent while s2's update still waited; that update's outcome came after the commit was sent.
    expect(at('s1-commit').sentAt).toBeGreaterThanOrEqual(at('s2-update').sentAt);
    expect(at('s2-update').completedAt).toBeGreaterThanOrEqual(at('s1-commit').sentAt);
  });
});
