/**
 * `run --spec FILE`: each file a scenario of the contract its steps drive — PAY steps the payment
 * contract's, RESERVE and the lifecycle the reservation contract's — and refused in one line (exit 2)
 * when `--strategy` names no design of that contract.
 */
import { readFileSync } from 'node:fs';
import { Errors, oneLine } from '../errors.ts';
import { specScenario } from '../explore/spec-scenario.ts';
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

/** The --spec files as scenarios; `strategyNames`: the --strategy names given (none: every design). */
export function readSpecFiles(files: readonly string[], strategyNames: readonly string[]): SpecFiles {
  const named = strategyNames.length > 0;
  const paymentNamed = strategyNames.some((n) => PAYMENT_DESIGN_IDS.includes(n));
  const reservationNamed = strategyNames.some((n) => !PAYMENT_DESIGN_IDS.includes(n));
  const specs: SpecFiles = { reservation: [], payment: [] };
  for (const file of files) {
    const text = readSpec(file);
    const spec = parseSpec(text, file);
    const contract = specContract(spec, file);
    const first = contract ? firstStepOf(spec, contract) : undefined;
    if (contract === 'payment') {
      if (named && !paymentNamed && first)
        throw Errors.badInput(
          `${stepDrives(file, first)}, but --strategy names no payment design (${PAYMENT_DESIGN_IDS.join(', ')})`,
        );
      specs.payment.push(paymentSpecFile(spec, text, file));
    } else {
      if (named && !reservationNamed && first)
        throw Errors.badInput(
          `${stepDrives(file, first)}, but --strategy names only payment designs: a reservation spec needs a reservation strategy`,
        );
      specs.reservation.push(specScenario(text, file));
    }
  }
  return specs;
}
