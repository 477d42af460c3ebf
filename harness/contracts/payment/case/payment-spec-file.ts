/**
 * A spec file of PAY steps as a payment scenario (`reservebench run --spec FILE`), as
 * explore/spec-scenario.ts makes one of a reservation spec: its sessions and its one permutation, against
 * every payment design run, each judged as if it claimed to hold (controls too, as for a reservation
 * spec). The design's setup makes its tables, so the spec has no setup of its own; nothing is expected of
 * it but what every payment case must hold. A design that declares none of the pause points its PAY
 * steps stop at sits it out (n/a).
 */
import { basename, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PaymentPausePoint } from '../../../../strategies/payment/contract.ts';
import { Errors } from '../../../errors.ts';
import type { ParsedSpec } from '../../../interleaving/spec-parser.ts';
import { payStepOf } from '../spec/payment-verbs.ts';
import type { PaymentSpecScenario } from './payment-scenario.ts';

export function paymentSpecFile(spec: ParsedSpec, text: string, file: string): PaymentSpecScenario {
  if (spec.setup.length > 0 || spec.teardown !== undefined)
    throw Errors.badInput(
      `${file}: a payment spec has no setup or teardown; the payment design's setup makes its tables`,
    );
  if (spec.permutations.length !== 1)
    throw Errors.badInput(`${file}: a strategy spec lists exactly one permutation (the one it runs)`);
  const held = new Set<PaymentPausePoint>();
  for (const { step } of spec.sessions.flatMap((s) => s.steps)) {
    const until = payStepOf(step)?.until;
    if (until) held.add(until);
  }
  const name = basename(file);
  return {
    contract: 'payment',
    id: name.replace(/\.spec$/, ''),
    source: pathToFileURL(resolve(file)).href,
    summary: `the spec ${name}`,
    ...(held.size > 0 ? { holdAt: [...held] } : {}),
    spec: () => text,
    everyDesignHolds: true,
    expect: {},
  };
}
