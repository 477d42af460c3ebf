/**
 * The exhaustive scope's batches (harness/explore/exhaustive.ts), without a database: they grow from a
 * small first one, so a bug among the first programs is found after fewer programs than a full batch
 * (and halved down to the program that fails alone), while a scope with no bug runs every program of its
 * budget, each once, in the same batches on every run. A finding that stops the scope midway through a
 * length does not claim that length complete.
 */
import { describe, expect, it } from 'vitest';
import type { ScopeLanguage } from '../harness/contract/contract-explore.ts';
import { exhaust } from '../harness/explore/exhaustive.ts';
import { SCOPE_BATCH_SIZE, SCOPE_FIRST_BATCH_SIZE } from '../harness/explore/explore-defaults.ts';

interface Numbered {
  n: number;
  length: number;
}

/** `ones` programs of one operation, then `twos` of two, numbered in order; one group. */
function language(ones: number, twos: number): ScopeLanguage<Numbered, Numbered[]> {
  return {
    *programs(maxLength) {
      for (let n = 0; n < ones + twos; n++) {
        const length = n < ones ? 1 : 2;
        if (length <= maxLength) yield { n, length };
      }
    },
    length: (p) => p.length,
    groupOf: () => 'all',
    batch: (programs) => [...programs],
    describe: (p) => `program ${p.n}`,
  };
}

/** Explores `lang`, every batch that contains `failing` failing; the batches as they ran. */
async function explored(lang: ScopeLanguage<Numbered, Numbered[]>, failing?: number) {
  const ran: number[][] = [];
  const outcome = await exhaust(lang, {
    batchSize: SCOPE_BATCH_SIZE,
    firstBatchSize: SCOPE_FIRST_BATCH_SIZE,
    budget: 1_600,
    maxLength: 2,
    outOfTime: () => false,
    run: async (batch) => {
      ran.push(batch.map((p) => p.n));
      return { verdict: batch.some((p) => p.n === failing) ? 'fail' : 'pass', result: batch.length };
    },
  });
  return { ...outcome, ran };
}

describe('the exhaustive scope in growing batches', () => {
  it('finds a bug among the first programs after fewer programs than a full batch', async () => {
    const { found, tally, ran } = await explored(language(30, 2_000), 5);
    expect(found?.programs).toEqual([{ n: 5, length: 1 }]);
    expect(tally.programs).toBeLessThan(SCOPE_BATCH_SIZE);
    expect(Math.max(...ran.map((b) => b.length))).toBeLessThan(SCOPE_BATCH_SIZE);
  });

  it('runs every program of a budget with no bug once, in the same growing batches every time', async () => {
    const first = await explored(language(30, 2_000));
    expect(first.found).toBeUndefined();
    expect(first.ran.flat()).toEqual(Array.from({ length: 1_600 }, (_, n) => n));
    expect(first.tally.programs).toBe(1_600);
    let before = 0;
    for (const batch of first.ran) {
      expect(batch.length).toBeLessThanOrEqual(
        Math.min(SCOPE_BATCH_SIZE, Math.max(SCOPE_FIRST_BATCH_SIZE, before)),
      );
      before += batch.length;
    }
    expect(first.ran.at(-2)).toHaveLength(SCOPE_BATCH_SIZE);
    expect((await explored(language(30, 2_000))).ran).toEqual(first.ran);
  });

  it('claims a length complete only when every program of it ran', async () => {
    const stopped = await explored(language(30, 200), 100);
    expect(stopped.found?.programs).toEqual([{ n: 100, length: 2 }]);
    expect(stopped.tally.completeLength).toBe(1);
    expect((await explored(language(30, 200))).tally.completeLength).toBe(2);
  });
});
