/**
 * Issue 37: the model allows what the contract allows whichever optional operations a design has. Every
 * built-in design that should hold is explored as variants: with every optional operation removed, through
 * the whole exhaustive scope of up to two operations (as the default run explores the full design:
 * test/explore.test.ts); and that variant and each with one optional operation removed, through the
 * random programs of 50 seeds spread over them (seed s is variant s mod n's first program, on fresh tables:
 * run-program.ts). No program fails. The same exploration fails a design that answers against the
 * contract where the model once raised a false alarm (a sku of no stock: test/fixtures/checks/
 * no-stock-answered-sold-out.ts), so a model that disagreed with an honest design would fail it too.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BUILT_IN_IDS, loadStrategy } from '../harness/contracts/reservation/designs/registry.ts';
import { programArbitrary } from '../harness/contracts/reservation/explore/program-arbitrary.ts';
import { RESERVATION_EXPLORE } from '../harness/contracts/reservation/explore/reservation-explore.ts';
import { runProgram } from '../harness/contracts/reservation/explore/run-program.ts';
import { reservationScope } from '../harness/contracts/reservation/explore/scope-programs.ts';
import type { RunDatabase } from '../harness/database/database.ts';
import { SCOPE_BATCH_SIZE, SCOPE_FIRST_BATCH_SIZE } from '../harness/explore/explore-defaults.ts';
import { batchedPhase } from '../harness/explore/scope-phase.ts';
import { PAUSING_OPERATIONS, type Strategy, type StrategyRef } from '../strategies/contract.ts';
import { useRunDatabase } from './db-fixture.ts';

const { db } = useRunDatabase();

const SEEDS = 50;
/** The scope's length each bare variant is explored to: every program of up to two operations. */
const SCOPE_LENGTH = 2;
/** Programs run side by side: most of a program's time is its WAITs and round trips, not the cores'. */
const SIDE_BY_SIDE = 4;
const OPTIONAL = ['confirm', 'release', 'expire', 'disable', 'backdate'] as const;
type Optional = (typeof OPTIONAL)[number];
const SETTINGS = { keepFailed: false, timeoutMs: 10_000, permutations: 'listed' } as const;

/** The design without these operations (and their pause points), as a design written without them is. */
function without(ref: StrategyRef, removed: readonly Optional[]): StrategyRef {
  if (removed.length === 0) return ref;
  const strategy: Record<string, unknown> = { ...ref.strategy };
  for (const op of removed) delete strategy[op];
  const pausePoints = Object.fromEntries(
    Object.entries(ref.strategy.pausePoints).filter(([op]) => !removed.includes(op as Optional)),
  );
  const id = `${ref.strategy.id}-without-${removed.join('-')}`;
  return { ...ref, strategy: { ...(strategy as unknown as Strategy), id, pausePoints } };
}

/** Every optional operation removed, then each one the design has removed alone. */
function variantsOf(ref: StrategyRef): StrategyRef[] {
  const has = OPTIONAL.filter((op) => ref.strategy[op] !== undefined);
  expect(PAUSING_OPERATIONS.filter((op) => op !== 'reserve').every((op) => OPTIONAL.includes(op))).toBe(true);
  return [without(ref, has), ...(has.length > 1 ? has.map((op) => without(ref, [op])) : [])];
}

/** Seed s's first random program on variant s mod n; the failures, each with its spec. */
async function explored(variants: readonly StrategyRef[], seeds: number): Promise<string[]> {
  const failures: string[] = [];
  let next = 0;
  // A run database per lane: a case's search_path and deadline touch only its own sessions.
  const lane = async () => {
    const beside = await db().beside?.();
    if (!beside) throw new Error('the test server gives no run database beside the first');
    try {
      await programsOf(beside);
    } finally {
      await beside.close({ keep: false });
    }
  };
  const programsOf = async (laneDb: RunDatabase) => {
    for (let seed = next++; seed < seeds; seed = next++) {
      const ref = variants[seed % variants.length] as StrategyRef;
      const [program] = fc.sample(programArbitrary(ref.strategy), { seed, numRuns: 1 });
      if (!program) throw new Error(`seed ${seed} gave no program`);
      const run = await runProgram(laneDb, ref, program, SETTINGS);
      if (run.kind === 'fail' || run.kind === 'broken') {
        const problems = 'problems' in run.result ? run.result.problems.join('; ') : run.result.status;
        failures.push(`${ref.strategy.id} seed ${seed}: ${problems}\n${run.spec}`);
      }
    }
  };
  await Promise.all(Array.from({ length: SIDE_BY_SIDE }, lane));
  return failures;
}

/** The bare variant through every scope program up to SCOPE_LENGTH: its finding, described; how many ran. */
async function scoped(ref: StrategyRef): Promise<{ found: string[]; programs: number; complete: number }> {
  const explored = { db: db(), ref, explore: RESERVATION_EXPLORE, settings: SETTINGS };
  const outcome = await batchedPhase(explored, reservationScope(ref.strategy), {
    programs: Number.POSITIVE_INFINITY,
    maxLength: SCOPE_LENGTH,
    batchSize: SCOPE_BATCH_SIZE,
    firstBatchSize: SCOPE_FIRST_BATCH_SIZE,
    outOfTime: () => false,
  });
  const problems = (r: NonNullable<typeof outcome.found>['result']) =>
    'problems' in r ? r.problems.join('; ') : r.status;
  const found = outcome.found
    ? [`${ref.strategy.id}: ${problems(outcome.found.result)}: ${outcome.found.described.join(' | ')}`]
    : [];
  return { found, programs: outcome.tally.programs, complete: outcome.tally.completeLength };
}

describe('every design that should hold, with and without its optional operations', () => {
  it(`explored through the scope without them, and with ${SEEDS} seeds: no finding`, async () => {
    const refs = await Promise.all(BUILT_IN_IDS.map((id) => loadStrategy(id)));
    const holding = refs.filter((r) => r.strategy.expect === 'hold');
    expect(holding.length).toBeGreaterThan(5);
    const failures: string[] = [];
    for (const ref of holding) {
      const variants = variantsOf(ref);
      // A design without optional operations is its own bare variant: the default run explores its scope.
      if (variants[0] !== ref) {
        const bare = await scoped(variants[0] as StrategyRef);
        expect(bare.complete, ref.strategy.id).toBe(SCOPE_LENGTH);
        failures.push(...bare.found);
      }
      failures.push(...(await explored(variants, SEEDS)));
    }
    expect(failures).toEqual([]);
  }, 900_000);

  it('and the same exploration fails a design that answers a sku of no stock against the contract', async () => {
    const [bare] = variantsOf(await loadStrategy('test/fixtures/checks/no-stock-answered-sold-out.ts'));
    const { found } = await scoped(bare as StrategyRef);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/not linearizable: .*answered SOLD_OUT .*the model answers BAD_REQUEST there/);
  }, 300_000);
});
