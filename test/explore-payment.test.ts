/**
 * The explorer over the payment contract (issues 37 and 38): one engine, the payment contract's side of it
 * (harness/contracts/payment/explore/). Every built-in payment design that should hold passes the whole
 * exhaustive scope (every program of up to two PAYs) and the random programs of 50 seeds; every negative
 * control is found, by a check its `caughtBy` names, and the spec written for it passes on every design
 * that should hold (or is n/a there, where the design declares none of the points the spec holds at). The
 * scope and the controls' findings are the shared default run's exploration (test/default-run.ts), which
 * explores every payment design so; this file adds the 50 seeds and the replays.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  loadPaymentDesign,
  PAYMENT_DESIGN_IDS,
  type PaymentDesignRef,
} from '../harness/contracts/payment/designs/payment-registry.ts';
import { payProgramArbitrary } from '../harness/contracts/payment/explore/pay-arbitrary.ts';
import { paySpecText } from '../harness/contracts/payment/explore/pay-program.ts';
import { PAY_SCOPE_LENGTH, payScope } from '../harness/contracts/payment/explore/pay-scope.ts';
import { PAYMENT_EXPLORE } from '../harness/contracts/payment/explore/payment-explore.ts';
import { EXPLORE_DEFAULTS } from '../harness/explore/explore-defaults.ts';
import { useRunDatabase } from './db-fixture.ts';
import { DEFAULT_RUN_TIMEOUT_MS, defaultRun } from './default-run.ts';

const { db } = useRunDatabase();
const SETTINGS = { keepFailed: false, timeoutMs: 10_000, permutations: 'listed' } as const;
const SEEDS = 50;

const refs = await Promise.all(PAYMENT_DESIGN_IDS.map((id) => loadPaymentDesign(id)));
/** The designs that should hold; the external call's wait at 0 ms (the cost is not what is explored). */
const honest: PaymentDesignRef[] = refs
  .filter((r) => r.design.expect === 'hold')
  .map((r) => (r.design.configure ? { ...r, design: r.design.configure({ callMs: 0 }) } : r));
const controls = refs.filter((r) => r.design.expect === 'violate');

/** The default run's exploration of this payment design (`explore/<id>`). */
async function exploredInDefaultRun(id: string) {
  const { report } = await defaultRun();
  const found = report.payments.find((c) => c.id === `explore/${id}`);
  if (!found) throw new Error(`the default run explored no ${id}`);
  return found;
}

describe('the payment scope', () => {
  it('covers two keys of every shape and each payload field varied alone, written as PAY steps', () => {
    const [onConflict] = honest;
    if (!onConflict) throw new Error('no payment design that holds');
    const programs = [...payScope(onConflict).programs(PAY_SCOPE_LENGTH)];
    const text = programs.map((p) => payScope(onConflict).describe(p)).join('\n');
    for (const option of ['AMOUNT 9999', 'CURRENCY USD', 'MERCHANT other', 'ORDER order-2002', 'RESUME KILL'])
      expect(text).toContain(option);
    for (const shape of ['plain', 'case', 'long shared prefix', 'unicode form'])
      expect(text).toContain(`(keys ${shape})`);
    expect(programs.every((p) => p.pays.length <= PAY_SCOPE_LENGTH)).toBe(true);
    const [sample] = fc.sample(payProgramArbitrary(onConflict), { seed: 1, numRuns: 1 });
    expect(sample && paySpecText(sample)).toMatch(
      /^session s1\n(step "s\d-\d+" \{ (PAY|RESUME) [^\n]+\}\n)+/m,
    );
  });
});

describe('every payment design that should hold', () => {
  it.each(honest.map((r) => [r.design.id, r] as const))(
    '%s: no finding in the whole scope, nor in 50 seeds of random programs',
    async (id, ref) => {
      // The whole scope, as the default run explores every design: no finding, every program of up to
      // PAY_SCOPE_LENGTH run, none broken.
      const explored = await exploredInDefaultRun(id);
      expect([explored.status, explored.fired], explored.boundary).toEqual(['pass', []]);
      const scope = explored.exploration?.scope;
      expect(scope?.completeLength, explored.boundary).toBe(PAY_SCOPE_LENGTH);
      expect([scope?.broken, explored.exploration?.spec], explored.boundary).toEqual([0, undefined]);
      const failures: string[] = [];
      for (let seed = 0; seed < SEEDS; seed++) {
        const [program] = fc.sample(payProgramArbitrary(ref), { seed, numRuns: 1 });
        if (!program) throw new Error(`seed ${seed} gave no program`);
        const run = await PAYMENT_EXPLORE.run(db(), ref, program, SETTINGS, []);
        if (run.kind === 'fail' || run.kind === 'broken')
          failures.push(`seed ${seed}: ${run.result.problems?.join('; ')}\n${run.spec}`);
      }
      expect(failures).toEqual([]);
    },
    DEFAULT_RUN_TIMEOUT_MS,
  );
});

describe('every payment control', () => {
  it.each(controls.map((r) => [r.design.id, r] as const))(
    '%s: found for its reason, and its spec passes every design that should hold',
    async (id, ref) => {
      // Found by the default run's exploration (its seed and budget), its spec failing every replay.
      const result = await exploredInDefaultRun(id);
      expect(result.status, result.boundary).toBe('pass');
      const replays = EXPLORE_DEFAULTS.replaysInRun;
      expect(result.exploration?.reproduced, result.boundary).toEqual({ failed: replays, of: replays });
      const reasons = new Set(Object.values(ref.design.caughtBy ?? {}).flat());
      expect(
        result.fired?.some((check) => reasons.has(check)),
        result.boundary,
      ).toBe(true);
      const spec = result.exploration?.spec;
      if (!spec) throw new Error(`${id}: no spec written`);
      const text = readFileSync(spec, 'utf8');
      for (const holds of honest) {
        const [replayed] = await PAYMENT_EXPLORE.replay(db(), holds, text, spec, SETTINGS, 1);
        const shown = `${holds.design.id} on ${id}'s spec: ${replayed?.boundary}`;
        // A design that declares none of the points the spec holds at sits it out, as any payment spec's.
        if (replayed?.status === 'n/a') expect(replayed.reason, shown).toMatch(/declares no pause point/);
        else expect(replayed?.status, shown).toBe('pass');
      }
    },
    DEFAULT_RUN_TIMEOUT_MS,
  );
});
