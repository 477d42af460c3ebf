/**
 * `run --spec FILE`: each file a scenario of the contract its steps drive — PAY steps the payment
 * contract's, RESERVE and the lifecycle the reservation contract's — and refused in one line (exit 2)
 * when `--strategy` names no design of that contract.
 */
import { readFileSync } from 'node:fs';
import { Errors, oneLine } from '../errors.ts';
import { specScenario } from '../explore/spec-scenario.ts';
import { PAYMENT_VERBS } from '../interleaving/payment-verbs.ts';
import { RESERVATION_VERBS } from '../interleaving/reservation-verbs.ts';
import { firstStepOf, specContract, stepDrives } from '../interleaving/spec-contract.ts';
import { parseSpec } from '../interleaving/spec-parser.ts';
import { PAYMENT_DESIGN_IDS } from '../registry/payment-registry.ts';
import type { PaymentSpecScenario } from '../scenario/payment/payment-scenario.ts';
import { paymentSpecFile } from '../scenario/payment/payment-spec-file.ts';
import type { InterleavingScenario } from '../scenario/scenario.ts';
import { shown } from './cli-arguments.ts';

export interface SpecFiles {
  reservation: InterleavingScenario[];
  payment: PaymentSpecScenario[];
}

function readSpec(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error: unknown) {
    throw Errors.badInput(`cannot read --spec ${shown(file)}: ${oneLine(error)}`);
  }
}

/** Every contract's verbs, as a spec given to `run --spec` is parsed. */
export const SPEC_VERBS = [RESERVATION_VERBS, PAYMENT_VERBS];

/** The --spec files as scenarios; `strategyNames`: the --strategy names given (none: every design). */
export function readSpecFiles(files: readonly string[], strategyNames: readonly string[]): SpecFiles {
  const named = strategyNames.length > 0;
  const paymentNamed = strategyNames.some((n) => PAYMENT_DESIGN_IDS.includes(n));
  const reservationNamed = strategyNames.some((n) => !PAYMENT_DESIGN_IDS.includes(n));
  const specs: SpecFiles = { reservation: [], payment: [] };
  for (const file of files) {
    const text = readSpec(file);
    const spec = parseSpec(text, file, SPEC_VERBS);
    const verbs = specContract(spec, file, SPEC_VERBS);
    const first = verbs ? firstStepOf(spec, verbs) : undefined;
    if (verbs === PAYMENT_VERBS) {
      if (named && !paymentNamed && first)
        throw Errors.badInput(
          `${stepDrives(file, first, verbs)}, but --strategy names no payment design (${PAYMENT_DESIGN_IDS.join(', ')})`,
        );
      specs.payment.push(paymentSpecFile(spec, text, file));
    } else {
      if (named && !reservationNamed && first && verbs)
        throw Errors.badInput(
          `${stepDrives(file, first, verbs)}, but --strategy names only payment designs: a reservation spec needs a reservation strategy`,
        );
      specs.reservation.push(specScenario(text, file));
    }
  }
  return specs;
}
