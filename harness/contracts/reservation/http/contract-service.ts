/**
 * The reservation contract's side of `serve` (Contract.service): the design loaded by the contract's
 * registry, then one service in front of it (serve.ts), or several on one shared schema
 * (serve-instances.ts, which starts each as a `serve` of its own).
 */
import type { ContractService } from '../../../contract/contract.ts';
import { RESERVATION_CATALOG } from '../catalog.ts';
import { loadStrategy } from '../designs/registry.ts';
import { serve } from './serve.ts';
import { serveInstances } from './serve-instances.ts';

export const RESERVATION_SERVICE: ContractService = {
  schemaName: RESERVATION_CATALOG.service.schemaName,
  serve: async ({ design, schema, ...settings }) =>
    serve({ ...settings, ref: await loadStrategy(design), ...(schema === undefined ? {} : { schema }) }),
  serveInstances,
};
