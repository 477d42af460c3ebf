/**
 * How a crash child starts (child-bundle.ts): a built-in design in one bundle run by plain `node`, each
 * module reading its SQL beside its own file as before; a plug-in through tsx and the registry. The
 * process that makes its bundle folder first removes those that processes killed before their exit left.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childArguments } from '../harness/crash/child-bundle.ts';
import { readRunStates, writeRunState } from '../harness/database/run-state.ts';

const ROOT = new URL('..', import.meta.url);

/** This file's own temporary folder (the bundles, the state files), planted with what others left. */
const tmp = mkdtempSync(join(tmpdir(), 'reservebench-crash-child-'));
const givenTmp = process.env.TMPDIR;
/** No process has this pid (above Linux's pid_max). */
const GONE = 999_999_998;

function planted(name: string, state: { pid: number; dataDir?: string }, n: number): string {
  const dir = join(tmp, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'child-1.mjs'), '');
  writeRunState(
    { ...state, startedAt: 'x', filesDir: dir },
    join(tmp, 'reservebench-state', `run-${state.pid}-${n}.json`),
  );
  return dir;
}

let left: Record<'killed' | 'live' | 'killedWithServer', string>;
beforeAll(() => {
  process.env.TMPDIR = tmp;
  mkdirSync(join(tmp, 'reservebench-state'), { mode: 0o700 });
  left = {
    killed: planted('reservebench-child-killed', { pid: GONE }, 1),
    live: planted('reservebench-child-live', { pid: process.pid }, 2),
    // A killed run's server is `reservebench clean`'s to stop: it says what it does.
    killedWithServer: planted('reservebench-child-server', { pid: GONE, dataDir: join(tmp, 'data') }, 3),
  };
});
afterAll(() => {
  if (givenTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = givenTmp;
  rmSync(tmp, { recursive: true, force: true });
});

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

  it('made its bundle folder after removing the one a killed process left, and only that one', () => {
    expect(existsSync(left.killed)).toBe(false);
    expect(existsSync(left.live)).toBe(true);
    expect(existsSync(left.killedWithServer)).toBe(true);
    const named = readRunStates().map(({ state }) => state.filesDir);
    expect(named).not.toContain(left.killed);
    expect(named).toEqual(expect.arrayContaining([left.live, left.killedWithServer]));
  });

  it('of a plug-in goes through tsx and the registry', async () => {
    const plugin = pathToFileURL(new URL('test/fixtures/lock-first.ts', ROOT).pathname).href;
    const args = await childArguments(plugin);
    expect(args[0]).toBe('--import');
    expect(args.at(-1)).toMatch(/harness\/crash\/crash-child\.ts$/);
  });
});
