/**
 * The isolation-matrix chapter's isolation contracts that test/isolation-spec.test.ts does not list, as
 * plain-SQL specs: write skew let through by REPEATABLE READ and failed once with 40001 by SERIALIZABLE, and
 * the version check of optimistic-cas (a stale compare-and-set updates 0 rows, the retry lands). Each output
 * is compared whole with its expected file; the relations the chapter names are asserted on the output as
 * well.
 */
import { describe, expect, inject, it } from 'vitest';
import { runCli } from './run-cli.ts';

const serverUrl = inject('serverUrl');

const SPECS = ['write-skew-repeatable-read', 'write-skew-serializable', 'optimistic-cas'] as const;
const specPath = (name: string) => `fixtures/reservation/specs/${name}.spec`;
const expectedPath = (name: string) => `fixtures/reservation/specs/expected/${name}.out`;

const spec = (name: string) => runCli(['spec', specPath(name)], { DATABASE_URL: serverUrl });

describe("the isolation-matrix chapter's specs", () => {
  it.each(SPECS)('%s.spec gives exactly its expected output', async (name) => {
    const run = await runCli(['spec', specPath(name), '--expected', expectedPath(name)], {
      DATABASE_URL: serverUrl,
    });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(`output of ${specPath(name)} matches ${expectedPath(name)}\n`);
    expect(run.code).toBe(0);
  });

  it('REPEATABLE READ lets the write skew through: both commit, 2 held of 1', async () => {
    const run = await spec('write-skew-repeatable-read');
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain('ERROR');
    expect(run.stdout).toContain('sku-lab-01|    1|   2\n');
  });

  it('SERIALIZABLE fails one of the two with 40001 after both took SIRead locks: 1 held of 1', async () => {
    const run = await spec('write-skew-serializable');
    expect(run.code).toBe(0);
    const [overlapping = '', serial = ''] = run.stdout.split('\nstarting permutation: ').slice(1);
    expect(overlapping).toContain('sessions\n--------\n       2\n');
    expect(overlapping.match(/^ERROR: .*$/gm)).toEqual([
      'ERROR:  could not serialize access due to read/write dependencies among transactions',
    ]);
    expect(overlapping).toContain('sku-lab-01|    1|   1\n');
    expect(serial).not.toContain('ERROR');
    expect(serial).toContain('sku-lab-01|    1|   1\n');
  });
});
