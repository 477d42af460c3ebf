/** Whose exit it is: the harness's own code, wherever its packages really are (harness/registry/plugin-exit.ts). */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ownCodeFolders } from '../harness/registry/plugin-exit.ts';

const dir = mkdtempSync(join(tmpdir(), 'reservebench-plugin-exit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the harness own code, for a plug-in exit', () => {
  it('counts the real folder of a node_modules that is a symbolic link', () => {
    const store = join(dir, 'store');
    mkdirSync(join(store, 'pg'), { recursive: true });
    const checkout = join(dir, 'checkout');
    mkdirSync(checkout);
    symlinkSync(store, join(checkout, 'node_modules'));
    const folders = ownCodeFolders(pathToFileURL(`${checkout}/`));
    // Node names a package's frame by its real path, past the link.
    const frame = pathToFileURL(join(store, 'pg', 'index.js')).href;
    expect(folders.some((own) => frame.startsWith(own))).toBe(true);
    expect(folders).toContain(pathToFileURL(`${checkout}/harness/`).href);
  });

  it('is the checkout folders alone when node_modules is a plain folder, or absent', () => {
    const plain = join(dir, 'plain');
    mkdirSync(join(plain, 'node_modules'), { recursive: true });
    const root = pathToFileURL(`${plain}/`);
    expect(ownCodeFolders(root)).toEqual(
      ['harness/', 'bin/', 'node_modules/'].map((f) => new URL(f, root).href),
    );
    const bare = pathToFileURL(`${join(dir, 'bare')}/`);
    expect(ownCodeFolders(bare)).toHaveLength(3);
  });
});
