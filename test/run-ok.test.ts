/** The one rule a run passes by (harness/suite/run-ok.ts), as every kind of run applies it. */
import { describe, expect, it } from 'vitest';
import { fatalCoverageGaps, runOk } from '../harness/suite/run-ok.ts';
import type { CaseResultBase } from '../harness/verdict/case-result.ts';

const aCase = (status: CaseResultBase['status'], more: Partial<CaseResultBase> = {}): CaseResultBase => ({
  id: `s/d-${status}`,
  scenario: 's',
  strategy: 'd',
  expect: 'hold',
  status,
  outcomes: {},
  boundary: '-',
  ...more,
});

const gap = aCase('n/a', {
  reason: 'no expire',
  coverage: { missing: ['expire'] },
} as Partial<CaseResultBase>);
const clean = { uncovered: [], unhandledErrors: 0 };

describe('runOk', () => {
  it('passes a run whose cases passed, or failed only as measurements', () => {
    expect(runOk({ cases: [aCase('pass'), aCase('fail', { expect: 'measure' })], ...clean })).toBe(true);
  });

  it('fails a run with a failed or broken case', () => {
    expect(runOk({ cases: [aCase('pass'), aCase('fail')], ...clean })).toBe(false);
    expect(runOk({ cases: [aCase('pass'), aCase('broken')], ...clean })).toBe(false);
  });

  it('fails a run that judged nothing: every case n/a, or no case', () => {
    expect(runOk({ cases: [aCase('n/a')], ...clean })).toBe(false);
    expect(runOk({ cases: [], ...clean })).toBe(false);
  });

  it('fails a run with a fatal coverage gap', () => {
    expect(runOk({ cases: [aCase('pass'), gap], uncovered: ['s/d: no expire'], unhandledErrors: 0 })).toBe(
      false,
    );
  });

  it('fails a run in which any error went unhandled, whatever its cases', () => {
    expect(runOk({ cases: [aCase('pass')], uncovered: [], unhandledErrors: 1 })).toBe(false);
  });
});

describe('fatalCoverageGaps', () => {
  it('names the n/a cases a design lacked an operation for, only under --require-coverage', () => {
    const cases = [aCase('pass'), aCase('n/a', { reason: 'sat out' }), gap];
    expect(fatalCoverageGaps(cases, true)).toEqual(['s/d-n/a: no expire']);
    expect(fatalCoverageGaps(cases, false)).toEqual([]);
  });
});
