/**
 * Every business contract the harness judges, in the order a run drives them and its report lists them.
 * The first is the contract of a design module that names none (`contract` absent). A new contract adds
 * its folder (harness/contracts/<id>/, docs/contracts.md), one entry here and one in catalogs.ts.
 */
import { ORDER } from './order/contract.ts';
import { PAYMENT } from './payment/contract.ts';
import { RESERVATION } from './reservation/contract.ts';

export const CONTRACTS = [RESERVATION, PAYMENT, ORDER] as const;
