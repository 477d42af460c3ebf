/**
 * Every contract's catalog (contract/contract-catalog.ts), in CONTRACTS' order (index.ts): what the command
 * line lists and checks before any contract loads. A new contract adds its catalog.ts and one entry here.
 */
import type { ContractCatalog } from '../contract/contract-catalog.ts';
import { ORDER_CATALOG } from './order/catalog.ts';
import { PAYMENT_CATALOG } from './payment/catalog.ts';
import { RESERVATION_CATALOG } from './reservation/catalog.ts';

export const CATALOGS: readonly ContractCatalog[] = [RESERVATION_CATALOG, PAYMENT_CATALOG, ORDER_CATALOG];
