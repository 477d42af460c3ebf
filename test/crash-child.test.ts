/**
 * How a crash child starts (child-bundle.ts): a built-in design in one bundle run by plain `node`, each
 * module reading its SQL beside its own file as before; a plug-in through tsx and the registry.
 */
import { existsSync, readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { childArguments } from '../harness/crash/child-bundle.ts';

const ROOT = new URL('..', import.meta.url);

describe('a crash child', () => {
  it('of a built-in design runs its bundle with plain node, knobs or not', async () => {
    const bucketed = new URL('strategies/bucketed.ts', ROOT).href;
    const args = await childArguments(`${bucketed}#buckets=16`);
    expect(args).toHaveLength(2);
    expect(args[0]).toBe('--enable-source-maps');
    const bundle = args[1] ?? '';
    expect(bundle).toMatch(/\.mjs$/);
    expect(existsSync(bundle)).toBe(true);
    // The same bundle for the design with other knobs: the knobs ride in the order's URL.
    expect(await childArguments(bucketed)).toEqual(args);
    // Every module keeps its own import.meta.url: bucketed.sql is read beside bucketed.ts.
    const text = readFileSync(bundle, 'utf8');
    expect(text.includes(`new URL("./bucketed.sql", ${JSON.stringify(bucketed)})`)).toBe(true);
  });

  it('of a plug-in goes through tsx and the registry', async () => {
    const plugin = pathToFileURL(new URL('test/fixtures/lock-first.ts', ROOT).pathname).href;
    const args = await childArguments(plugin);
    expect(args[0]).toBe('--import');
    expect(args.at(-1)).toMatch(/harness\/crash\/crash-child\.ts$/);
  });
});
