/**
 * The nodes a case's clients talk to are the scenario's, never the machine's: `contention` spreads its
 * clients over 3 nodes, which 40 units do not divide, so a memory design that loses the remainder of its
 * shares fails on every machine (with one node per core it passed on 2 cores, where 40 divides). The
 * worker threads only schedule the nodes: the same run on 1 thread and on 4 reaches the same verdict.
 */
import { describe, expect, inject, it } from 'vitest';
import type { Report } from '../harness/report/report.ts';
import { failsTheRun } from '../harness/verdict/case-result.ts';
import { measured, runJson } from './run-cli.ts';

const serverUrl = inject('serverUrl');
const LOSES_REMAINDER = 'test/fixtures/paths/share-loses-remainder.ts';

describe('a memory design whose shares lose the remainder (test/fixtures/paths/share-loses-remainder.ts)', () => {
  it('fails the default run in contention (40 units over 3 nodes) only', async () => {
    const { run, report } = await runJson(serverUrl, ['--strategy', LOSES_REMAINDER]);
    expect(report.cases.filter(failsTheRun).map((c) => c.id)).toEqual(['contention/share-loses-remainder']);
    const c = measured(report.cases, 'contention/share-loses-remainder');
    // The unit no node owns: remaining() says 1, and no node sells it to the probe either.
    expect([...c.fired].sort()).toEqual(['outcomes', 'sellsWhatRemains']);
    expect(c.outcomes).toEqual({ HELD: 39, SOLD_OUT: 111 });
    expect(c.invariants).toMatchObject({ total: 40, active: 39, available: 1, falseSoldOut: 1 });
    expect(run.code).toBe(1);
  }, 120_000);
});

/** The designs that keep state per node (memory, coalescing lanes), and the fixture above. */
const STRATEGIES = ['memory-quota', 'memory-quota-config-restart', 'coalesced', LOSES_REMAINDER];
/** Keep their memory per node: their answer counts are part of the verdict compared. */
const MEMORY_DESIGNS = new Set(['memory-quota', 'memory-quota-config-restart', 'share-loses-remainder']);
/** How many aborting clients held a unit when they rolled back is the scheduler's, on any thread count. */
const COUNTS_A_RACE_SPLITS = new Set(['contention-aborts']);

/** Every case's status and fired checks, and the memory designs' answer counts. */
function verdict(report: Report) {
  return report.cases.map((c) => ({
    id: c.id,
    status: c.status,
    fired: c.status === 'pass' || c.status === 'fail' ? [...c.fired].sort() : [],
    ...(MEMORY_DESIGNS.has(c.strategy) && !COUNTS_A_RACE_SPLITS.has(c.scenario)
      ? { outcomes: c.outcomes }
      : {}),
  }));
}

describe('run --threads', () => {
  it('gives the same verdict on 1 worker thread and on 4', async () => {
    const runOn = (threads: number) =>
      runJson(serverUrl, ['--strategy', STRATEGIES.join(','), '--threads', String(threads)]);
    const one = await runOn(1);
    const four = await runOn(4);
    expect(verdict(four.report)).toEqual(verdict(one.report));
    expect(one.report.cases.filter(failsTheRun).map((c) => c.id)).toEqual([
      'contention/share-loses-remainder',
    ]);
    expect(measured(one.report.cases, 'restart/memory-quota-config-restart').outcomes).toEqual({
      HELD: 60,
      SOLD_OUT: 60,
    });
    expect([one.run.code, four.run.code]).toEqual([1, 1]);
  }, 300_000);
});
