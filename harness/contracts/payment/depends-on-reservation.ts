/**
 * The payment contract depends on the reservation contract, and this is the one file of its folder that
 * says so (test/contract-names.test.ts holds every other to it): an order flow (case/order-flow.ts) reserves
 * and confirms a unit with a reservation strategy, then pays for it with the payment design, on one schema
 * under the order's key — so it loads the strategy, kills it at a pause point, reads its orders back, and
 * judges both sides together (verdict/order-invariants.ts). What the two contracts share otherwise is the
 * shared harness's (history-summary.ts, sql-design-url.ts, …), never imported across their folders.
 */
export { crashStrategy, crashWorkOf } from '../reservation/case/crash-operation.ts';
export { TTL_MS } from '../reservation/case/scenario.ts';
export { loadStrategy } from '../reservation/designs/registry.ts';
export { type FinalRead, readBack } from '../reservation/verdict/final-read.ts';
