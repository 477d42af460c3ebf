/** The order contract's catalog (contract/contract-catalog.ts): its names, without loading it. */
import type { ContractCatalog } from '../../contract/contract-catalog.ts';
import { scenarioIds } from '../../registry/scenario-ids.ts';

export const ORDER_CATALOG = {
  id: 'order',
  /** Relative to strategies/order/: the safe designs first, then the negative controls. */
  builtInDesigns: {
    'order-sku-order': 'sku-order.ts',
    'order-serializable': 'serializable.ts',
    'order-frozen-ledger': 'frozen-ledger.ts',
    'order-request-order': 'controls/request-order.ts',
    'order-line-per-transaction': 'controls/line-per-transaction.ts',
    'order-read-then-subtract': 'controls/read-then-subtract.ts',
    'order-expire-off-the-books': 'controls/expire-off-the-books.ts',
  },
  scenarioIds: scenarioIds('order'),
} satisfies ContractCatalog;
