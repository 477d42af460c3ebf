/**
 * The explorer's programs, without a database: a schedule keeps each session's own order and sends every
 * step once; a program's spec parses in the suite's own language with its stock; generated programs are
 * the same for the same seed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { specScenario } from '../harness/contracts/reservation/case/spec-file.ts';
import { type Program, scheduled, specText } from '../harness/contracts/reservation/explore/program.ts';
import { programArbitrary } from '../harness/contracts/reservation/explore/program-arbitrary.ts';
import { RESERVATION_VERBS } from '../harness/contracts/reservation/spec/reservation-verbs.ts';
import { parseSpec } from '../harness/interleaving/spec-parser.ts';
import hotRow from '../strategies/hot-row.ts';
import memoryQuota from '../strategies/memory-quota.ts';

describe('explored programs', () => {
  it('schedule every step once, each session in its own order', () => {
    fc.assert(
      fc.property(programArbitrary(hotRow), (program: Program) => {
        const order = scheduled(program);
        program.sessions.forEach((_, s) => {
          const mine = order.filter((step) => step.session === s).map((step) => step.body);
          const own = scheduled({ ...program, sessions: [program.sessions[s] ?? []], priorities: [0] });
          expect(mine).toEqual(own.map((step) => step.body));
        });
      }),
      { numRuns: 200, seed: 1 },
    );
  });

  it('are written as specs that parse, with their stock, and replay as scenarios', () => {
    fc.assert(
      fc.property(programArbitrary(memoryQuota), (program: Program) => {
        const text = specText(program, ['header']);
        const spec = parseSpec(text, 'explored.spec', [RESERVATION_VERBS]);
        expect(spec.permutations).toHaveLength(1);
        expect(specScenario(text, 'reports/explore/x-seed1.spec').input.stock).toEqual(program.stock);
      }),
      { numRuns: 200, seed: 2 },
    );
  });

  it('are the same for the same seed', () => {
    const sample = (seed: number) => fc.sample(programArbitrary(hotRow), { seed, numRuns: 5 });
    expect(sample(7)).toEqual(sample(7));
    expect(sample(7)).not.toEqual(sample(8));
  });

  it('use only the operations and pause points the design declares', () => {
    const noLifecycle = {
      ...hotRow,
      confirm: undefined,
      release: undefined,
      expire: undefined,
      backdate: undefined,
    };
    const text = fc
      .sample(programArbitrary({ ...noLifecycle, pausePoints: {} }), { seed: 3, numRuns: 50 })
      .map((p) => specText(p))
      .join('\n');
    expect(text).not.toMatch(/CONFIRM|RELEASE|EXPIRE|BACKDATE|UNTIL/);
    expect(text).toMatch(/RESERVE/);
  });
});
