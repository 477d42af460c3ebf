/**
 * A spec file of PAY steps as a payment scenario (`reservebench run --spec FILE`), as case/spec-file.ts
 * reads one for every contract whose designs make their own tables: against every payment design run, each
 * judged as if it claimed to hold; a design that declares none of the pause points its PAY steps stop at
 * sits it out (n/a).
 */
import type { PaymentPausePoint } from '../../../../strategies/payment/contract.ts';
import { specFileScenario } from '../../../case/spec-file.ts';
import { type ParsedSpec, parseSpec } from '../../../interleaving/spec-parser.ts';
import { PAYMENT_VERBS, payStepOf } from '../spec/payment-verbs.ts';
import type { PaymentSpecScenario } from './payment-scenario.ts';

export function paymentSpecFile(spec: ParsedSpec, text: string, file: string): PaymentSpecScenario {
  const said = { spec: 'a payment spec', design: 'the payment design', stepOf: payStepOf };
  return { contract: 'payment', ...specFileScenario<PaymentPausePoint>(spec, text, file, said) };
}

/** A spec file's text as a payment scenario (`run --spec FILE`, and the explorer's programs and replays). */
export function readPaymentSpec(text: string, file: string): PaymentSpecScenario {
  return paymentSpecFile(parseSpec(text, file, [PAYMENT_VERBS]), text, file);
}
