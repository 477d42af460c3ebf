/**
 * The engine's strategy steps from specs, against real strategies on fresh tables: what each record says
 * about its step's span. Assertions are relations between records (sent before, completed after), never
 * a timing.
 */
import { describe, expect, it } from 'vitest';
import { runPermutation } from '../harness/interleaving/engine.ts';
import { harnessNow } from '../harness/interleaving/harness-clock.ts';
import type { StepRecord } from '../harness/interleaving/permutation.ts';
import { parseSpec } from '../harness/interleaving/spec-parser.ts';
import { loadStrategy } from '../harness/registry/registry.ts';
import type { StockLine } from '../strategies/contract.ts';
import { useRunDatabase } from './db-fixture.ts';

const { db, admin } = useRunDatabase();

/** The spec's one permutation, run against `strategy` on fresh tables holding `stock`. */
async function runSpecOn(
  strategyId: string,
  stock: readonly StockLine[],
  lines: readonly string[],
): Promise<Map<string, StepRecord>> {
  const { strategy } = await loadStrategy(strategyId);
  const schema = await db().createCaseSchema(`steps ${strategyId}`);
  await admin().query(`SET search_path TO ${schema}`);
  try {
    await strategy.setup(admin(), stock);
  } finally {
    await admin().query('RESET search_path');
  }
  const [permutation] = parseSpec(lines.join('\n'), 'steps.spec').permutations;
  if (!permutation) throw new Error('the spec lists no permutation');
  const records = await runPermutation(permutation, {
    connectionString: db().connectionString,
    schema,
    strategy,
    timeoutMs: 20_000,
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
