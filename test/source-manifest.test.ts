/**
 * The report's sources (the isolation-matrix chapter's manifest): a digest changes when any file a design
 * pulls in changes — its module, a helper it imports, SQL it reads — and not when nothing did; the harness is
 * not followed.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { PAYMENT_SCENARIOS } from '../harness/contracts/payment/case/payment-scenarios.ts';
import { PAYMENT } from '../harness/contracts/payment/contract.ts';
import { loadPaymentDesign } from '../harness/contracts/payment/designs/payment-registry.ts';
import { sourceEntry } from '../harness/registry/source-manifest.ts';
import { runSources } from '../harness/suite/run-sources.ts';

const folder = mkdtempSync(join(tmpdir(), 'reservebench-sources-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const write = (name: string, text: string) => writeFileSync(join(folder, name), text);
const design = () => sourceEntry('design', 'plug-in', pathToFileURL(join(folder, 'design.ts')).href);

describe('a design file and what it pulls in', () => {
  write('design.ts', "import { rows } from './helper.ts';\nexport default rows;\n");
  write(
    'helper.ts',
    "import { readFileSync } from 'node:fs';\nexport const rows = readFileSync(new URL('./table.sql', import.meta.url), 'utf8');\n",
  );
  write('table.sql', 'CREATE TABLE t (id int);\n');

  it('lists the module, its import and the SQL that import reads, and no package', () => {
    const entry = design();
    expect(entry.files.map((f) => f.slice(folder.length + 1))).toEqual([
      'design.ts',
      'helper.ts',
      'table.sql',
    ]);
    expect(entry.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(design().sha256).toBe(entry.sha256);
  });

  it('gets another digest when the SQL a helper reads changes, and the same one back when it is restored', () => {
    const before = design().sha256;
    write('table.sql', 'CREATE TABLE t (id bigint);\n');
    const changed = design().sha256;
    write('table.sql', 'CREATE TABLE t (id int);\n');
    expect(changed).not.toBe(before);
    expect(design().sha256).toBe(before);
  });

  it('is the design code alone: a variant fragment names the same files and digest', () => {
    const url = `${pathToFileURL(join(folder, 'design.ts')).href}#buckets=4`;
    expect(sourceEntry('design', 'plug-in[buckets=4]', url).sha256).toBe(design().sha256);
  });

  it('does not follow into the harness: a built-in scenario lists its own file only', () => {
    const builtIn = sourceEntry(
      'scenario',
      'contention',
      new URL('../fixtures/reservation/scenarios/contention.ts', import.meta.url).href,
    );
    expect(builtIn.file).toBe('fixtures/reservation/scenarios/contention.ts');
    expect(builtIn.files.some((f) => f.startsWith('harness/'))).toBe(false);
  });

  it("lists the payment contract's designs and scenarios beside the reservation ones", async () => {
    const design = await loadPaymentDesign('payment-on-conflict');
    const scenarios = PAYMENT_SCENARIOS.filter((s) => s.id === 'payment-mismatch');
    const entries = runSources([{ contract: PAYMENT, selection: { designs: [design], scenarios } }]);
    expect(entries.map((e) => `${e.kind} ${e.id} ${e.file}`)).toEqual([
      'design payment-on-conflict strategies/payment/on-conflict.ts',
      'scenario payment-mismatch fixtures/payment/scenarios/payment-mismatch.ts',
    ]);
  });
});
