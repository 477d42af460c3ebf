/**
 * The order contract's two-session deadlock spec (fixtures/order/specs/opposite-carts.spec), in plain SQL:
 * the carts in the client's order deadlock (one 40P01, the victim fixed by deadlock_timeout), the same
 * carts in sku order queue and are both held. Its output is compared whole with the golden file, ten runs
 * in a row: it holds only what PostgreSQL makes deterministic, never a PID or a timing.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseSpec } from '../harness/interleaving/spec-parser.ts';
import { runSpec } from '../harness/interleaving/spec-run.ts';
import { useRunDatabase } from './db-fixture.ts';

const { db } = useRunDatabase();

const SPEC = 'fixtures/order/specs/opposite-carts.spec';
const EXPECTED = 'fixtures/order/specs/expected/opposite-carts.out';
const RUNS = 10;

async function outputOf(path: string): Promise<string> {
  let output = '';
  await runSpec(parseSpec(readFileSync(path, 'utf8'), path), {
    connectionString: db().connectionString,
    timeoutMs: 20_000,
    write: (text) => {
      output += text;
    },
    warn: (line) => {
      throw new Error(line);
    },
  });
  return output;
}

describe('opposite carts, two sessions, in plain SQL', () => {
  it(`gives exactly its expected output ${RUNS} runs of ${RUNS}`, async () => {
    const expected = readFileSync(EXPECTED, 'utf8');
    const outputs: string[] = [];
    for (let run = 0; run < RUNS; run++) outputs.push(await outputOf(SPEC));
    expect(outputs.filter((o) => o === expected)).toHaveLength(RUNS);
    // Request order: exactly one deadlock, and its victim's cart rolled back whole; sku order: none.
    const [requestOrder = '', skuOrder = ''] = expected.split('starting permutation').slice(1);
    expect(requestOrder.match(/deadlock detected/g)).toHaveLength(1);
    expect(requestOrder).toContain('k-ab       |HELD  |sku-a:1,sku-b:1\n(1 row)');
    expect(skuOrder).not.toContain('deadlock');
    expect(skuOrder).toContain('step s2a: <... completed>');
    expect(skuOrder).toContain('(2 rows)\n\n');
  });
});
