/**
 * No test puts a password on a child's argv, where `ps` shows it to every user: the command line is
 * started only with cliArgv (test/cli-child.ts), which refuses an argument that carries a secret, and no
 * test hands `--database-url` a URL it did not write out (the shared server's, which has a password).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliArgv } from './cli-child.ts';

const TEST = new URL('.', import.meta.url).pathname;
const SOURCES = readdirSync(TEST, { recursive: true, encoding: 'utf8' })
  .filter((name) => name.endsWith('.ts') && !name.startsWith('fixtures') && name !== 'child-argv.test.ts')
  .map((name) => ({ name, text: readFileSync(join(TEST, name), 'utf8') }));

describe("a command-line child's argv", () => {
  it.each([
    'postgresql://postgres:hunter2@127.0.0.1:5432/postgres',
    'postgres://127.0.0.1/db?password=hunter2',
    'postgresql://127.0.0.1/db?sslmode=require&sslpassword=hunter2',
  ])('refuses %s, pointing to DATABASE_URL', (url) => {
    expect(() => cliArgv(['run', '--database-url', url])).toThrow(/pass it in DATABASE_URL$/);
    expect(() => cliArgv(['run', '--database-url', url])).not.toThrow(/hunter2/);
  });

  it('takes a URL without a secret, and any other argument', () => {
    const args = [
      'run',
      '--database-url',
      'postgresql://nobody@127.0.0.1:1/none',
      '--target',
      'http://u:p@h/',
    ];
    expect(cliArgv(args).slice(1)).toEqual(args);
  });

  it('is built by cliArgv in every test', () => {
    const byHand = SOURCES.filter(
      ({ name, text }) => name !== 'cli-child.ts' && /reservebench\.js/.test(text),
    );
    expect(byHand.map(({ name }) => name)).toEqual([]);
  });

  it('never gets a --database-url that a test did not write out', () => {
    const passed = SOURCES.flatMap(({ name, text }) =>
      [...text.matchAll(/'--database-url',\s*(?!['"`]|UNREACHABLE_URL\b)([^\s,\]]+)/g)].map(
        (m) => `${name}: --database-url ${m[1]}`,
      ),
    );
    expect(passed).toEqual([]);
  });
});
