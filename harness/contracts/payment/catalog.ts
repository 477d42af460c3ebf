/** The payment contract's catalog (contract/contract-catalog.ts): its names, without loading it. */
import type { ContractCatalog } from '../../contract/contract-catalog.ts';
import { scenarioIds } from '../../registry/scenario-ids.ts';

export const PAYMENT_CATALOG = {
  id: 'payment',
  /** Relative to strategies/payment/: the safe designs first, then the negative controls. */
  builtInDesigns: {
    'payment-on-conflict': 'on-conflict.ts',
    'payment-advisory-lock': 'advisory-lock.ts',
    'payment-serializable': 'serializable.ts',
    'payment-external-call-inside': 'controls/external-call-inside.ts',
    'payment-check-then-insert': 'controls/check-then-insert.ts',
    'payment-no-fingerprint': 'controls/no-fingerprint.ts',
    'payment-split-outbox': 'controls/split-outbox.ts',
    'payment-attempt-id-unique': 'controls/attempt-id-unique.ts',
    'payment-pending-cache': 'controls/pending-cache.ts',
  },
  scenarioIds: scenarioIds('payment'),
} satisfies ContractCatalog;
