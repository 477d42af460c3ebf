/**
 * The command line starts from a bundle of its sources (bin/cli-bundle.js): never a stale one, carrying
 * every module the harness imports by URL, and doing what the sources do.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import {
  bundledModuleFiles,
  cliBundle,
  BUNDLED_MODULES as ENTRY_KEY,
  sourceFingerprint,
} from '../bin/cli-bundle.js';
import { PAYMENT_SCENARIOS } from '../harness/contracts/payment/case/payment-scenarios.ts';
import {
  loadAllPaymentDesigns,
  PAYMENT_DESIGN_IDS,
} from '../harness/contracts/payment/designs/payment-registry.ts';
import { SCENARIOS } from '../harness/contracts/reservation/case/index.ts';
import { BUILT_IN_IDS, loadAllBuiltIn } from '../harness/contracts/reservation/designs/registry.ts';
import { BUNDLED_MODULES, importSource } from '../harness/registry/source-import.ts';
import { cliArgv } from './cli-child.ts';

const execFileAsync = promisify(execFile);

describe('the command line bundle', () => {
  const root = mkdtempSync(join(tmpdir(), 'reservebench-fingerprint-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('is named by every source file: a changed, added or renamed file is a new bundle', () => {
    mkdirSync(join(root, 'harness', 'cli'), { recursive: true });
    writeFileSync(join(root, 'harness', 'cli', 'a.ts'), 'export const a = 1;\n');
    const first = sourceFingerprint(root, ['harness']);
    expect(sourceFingerprint(root, ['harness'])).toBe(first);
    writeFileSync(join(root, 'harness', 'cli', 'a.ts'), 'export const a = 2;\n');
    const changed = sourceFingerprint(root, ['harness']);
    writeFileSync(join(root, 'harness', 'cli', 'b.ts'), '');
    const added = sourceFingerprint(root, ['harness']);
    rmSync(join(root, 'harness', 'cli', 'b.ts'));
    writeFileSync(join(root, 'harness', 'cli', 'c.ts'), '');
    const renamed = sourceFingerprint(root, ['harness']);
    expect(new Set([first, changed, added, renamed]).size).toBe(4);
  });

  it('carries every built-in design and scenario under the URL the harness imports it by', async () => {
    const carried = new Set(bundledModuleFiles().map((file) => pathToFileURL(file).href));
    const imported = [
      ...(await loadAllBuiltIn()).map((ref) => ref.moduleUrl),
      ...(await loadAllPaymentDesigns()).map((ref) => ref.moduleUrl),
      ...SCENARIOS.map((s) => s.source),
      ...PAYMENT_SCENARIOS.map((s) => s.source),
    ];
    expect(imported.filter((url) => url === undefined || !carried.has(url))).toEqual([]);
    // One file each: every built-in id and every scenario, none left out, none twice.
    const ids = BUILT_IN_IDS.length + PAYMENT_DESIGN_IDS.length + SCENARIOS.length + PAYMENT_SCENARIOS.length;
    expect(new Set(imported).size).toBe(ids);
  });

  it('has the harness take a carried module from it, and import any other as it is', async () => {
    // The key the bundle's entry sets is the one the harness reads.
    expect(BUNDLED_MODULES).toBe(ENTRY_KEY);
    const key = BUNDLED_MODULES;
    const carried = { default: 'the bundle’s copy' };
    const url = pathToFileURL(join(root, 'carried.ts')).href;
    const holder = globalThis as { [key]?: Map<string, () => Promise<unknown>> };
    holder[key] = new Map([[url, () => Promise.resolve(carried)]]);
    try {
      expect(await importSource(url)).toBe(carried);
      const other = new URL('../harness/errors.ts', import.meta.url).href;
      expect(await importSource(other)).toHaveProperty('Errors');
    } finally {
      delete holder[key];
    }
  });

  it('lists what the sources list', async () => {
    expect(await cliBundle()).toMatch(/node_modules\/\.cache\/reservebench\/cli-[0-9a-f]{16}\/cli\.mjs$/);
    const fromBundle = await execFileAsync(process.execPath, cliArgv(['list']));
    const fromSources = await execFileAsync(process.execPath, cliArgv(['list']), {
      env: { ...process.env, RESERVEBENCH_SOURCES: '1' },
    });
    expect(fromBundle.stdout).toBe(fromSources.stdout);
    expect(fromBundle.stdout).toMatch(/hot-row/);
  });
});
