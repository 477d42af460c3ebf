/**
 * The body of POST /admin/reset (`serve --allow-reset`): `{ "stock": [{ "sku": "sku-lab-01", "total": 40 }, …] }`,
 * checked before anything is dropped. Anything else is a BAD_REQUEST with a reason; the check never throws.
 */
import type { StockLine } from '../../../../strategies/contract.ts';
import { isRequestKey } from './reserve-body.ts';

/** As many skus as any scenario loads, and then some; `--stock`'s bound for each total. */
export const MAX_RESET_SKUS = 32;
export const MAX_RESET_TOTAL = 1_000_000;

export type ResetCheck = { ok: true; stock: StockLine[] } | { ok: false; reason: string };

export function checkResetBody(text: string): ResetCheck {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'body must be JSON: {"stock": [{"sku": …, "total": …}]}' };
  }
  const lines =
    typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as { stock?: unknown }).stock
      : undefined;
  if (!Array.isArray(lines) || lines.length === 0 || lines.length > MAX_RESET_SKUS) {
    return { ok: false, reason: `stock must be a list of 1…${MAX_RESET_SKUS} {"sku", "total"} objects` };
  }
  const stock: StockLine[] = [];
  for (const line of lines as unknown[]) {
    const { sku, total } = (typeof line === 'object' && line !== null ? line : {}) as Record<string, unknown>;
    if (typeof sku !== 'string' || !isRequestKey(sku)) return { ok: false, reason: 'malformed sku' };
    if (!Number.isSafeInteger(total) || (total as number) < 0 || (total as number) > MAX_RESET_TOTAL) {
      return { ok: false, reason: `total of ${sku} must be a whole number 0…${MAX_RESET_TOTAL}` };
    }
    if (stock.some((s) => s.sku === sku)) return { ok: false, reason: `sku ${sku} is given twice` };
    stock.push({ sku, total: total as number });
  }
  return { ok: true, stock };
}
