/**
 * Which business contract a spec drives, from its steps: PAY is the payment contract's; RESERVE, the
 * lifecycle operations, STATUS, REMAINING and RESTART are the reservation contract's; SQL, WAIT and
 * RESUME belong to either. A scenario says which contract it drives, so one spec drives one of them.
 */
import { Errors } from '../errors.ts';
import type { Step } from './permutation.ts';
import type { ParsedSpec, SpecStep } from './spec-parser.ts';

export type SpecContract = 'payment' | 'reservation';

function contractOf(step: Step): SpecContract | undefined {
  if ('pay' in step) return 'payment';
  if ('reserve' in step || 'operation' in step || 'read' in step || 'restart' in step) return 'reservation';
  return undefined;
}

const where = (file: string, s: SpecStep) => `${file}:${s.at.line}:${s.at.column}`;

/** The first step of the spec that drives `contract`, if any. */
export function firstStepOf(spec: ParsedSpec, contract: SpecContract): SpecStep | undefined {
  return spec.sessions.flatMap((s) => s.steps).find((s) => contractOf(s.step) === contract);
}

/** The one step's words that name its contract in an error: "pays" or "calls the reservation contract". */
export function stepDrives(file: string, step: SpecStep): string {
  const what = contractOf(step.step) === 'payment' ? 'pays (the payment contract)' : 'drives a reservation';
  return `${where(file, step)}: step "${step.step.name}" ${what}`;
}

/**
 * The contract the spec's steps drive; undefined when none names one (SQL and WAIT only). A spec with
 * steps of both is refused in one line, exit 2.
 */
export function specContract(spec: ParsedSpec, file: string): SpecContract | undefined {
  const pay = firstStepOf(spec, 'payment');
  const reserve = firstStepOf(spec, 'reservation');
  if (pay && reserve)
    throw Errors.badInput(
      `${stepDrives(file, pay)}, but step "${reserve.step.name}" (line ${reserve.at.line}) drives a reservation: a spec drives one contract`,
    );
  if (pay) return 'payment';
  return reserve ? 'reservation' : undefined;
}
