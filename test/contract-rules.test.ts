/**
 * The model is the documented contract: every rule the three models tag their answers with is a row of
 * docs/contract.md's rule tables, word for word, and every row there is a rule of a model. A rule changed
 * on one side only fails here.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ORDER_RULES } from '../harness/contracts/order/order-rules.ts';
import { RESERVATION_RULES } from '../harness/history/contract-rules.ts';
import { PAYMENT_RULES } from '../harness/history/payment-model.ts';

const CONTRACT = readFileSync(new URL('../docs/contract.md', import.meta.url), 'utf8');

/** The rows of the rule table that follows `heading` in docs/contract.md: rule id → its text. */
function ruleRows(after: string): Record<string, string> {
  const start = CONTRACT.indexOf(after);
  if (start < 0) throw new Error(`docs/contract.md has no "${after}"`);
  const table = CONTRACT.slice(CONTRACT.indexOf('| rule | what the model answers |', start));
  const rows: Record<string, string> = {};
  for (const line of table.split('\n').slice(2)) {
    const row = /^\| `([^`]+)` \| (.*) \|$/.exec(line);
    if (!row) break;
    rows[row[1] as string] = row[2] as string;
  }
  return rows;
}

describe('the contract models and docs/contract.md', () => {
  it('state the reservation rules in the same words', () => {
    expect(ruleRows('### The rules the checker applies')).toEqual(RESERVATION_RULES);
  });

  it('state the payment rules in the same words', () => {
    expect(ruleRows("The payment model's rules")).toEqual(PAYMENT_RULES);
  });

  it('state the order rules in the same words', () => {
    expect(ruleRows("The order model's rules")).toEqual(ORDER_RULES);
  });
});
