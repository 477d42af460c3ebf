/**
 * No unexplained names: the write-ups the suite reproduces are named once, in docs/sources.md, and
 * everywhere else the code, the docs, the reports and the file names say what is meant ("the flash-sale
 * lab's 40 units / 150 requests"). Their archive numbers and the lab's case numbers mean nothing to a
 * reader who never saw the archive, so they may appear nowhere but in docs/sources.md.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('..', import.meta.url).pathname;

/** An archive number ("seed" and three digits, across a line break too) or one of the lab's case numbers. */
const ARCHIVE_NAME = /\bseeds?[\s-]*00\d|\bC28-\d/i;

/** Not the repository's own text: installed packages, git's store, a run's output. */
const NOT_OURS = new Set(['node_modules', '.git']);
/** Under reports/ only what is committed is ours: what runs write there is the harness's output. */
const COMMITTED_REPORTS = new Set(['reports/README.md', 'reports/examples']);

/** The one page that says what each source is, and this file (its samples below). */
const ALLOWED = ['docs/sources.md', 'test/source-names.test.ts'];

function repositoryFiles(dir = ''): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    if (NOT_OURS.has(name)) return [];
    const path = dir ? `${dir}/${name}` : name;
    if (dir === 'reports' && !COMMITTED_REPORTS.has(path)) return [];
    return statSync(join(ROOT, path)).isDirectory() ? repositoryFiles(path) : [path];
  });
}

/** The files whose path or text carries an archive name. */
function filesNamingTheArchive(): string[] {
  return repositoryFiles().filter(
    (file) => ARCHIVE_NAME.test(file) || ARCHIVE_NAME.test(readFileSync(join(ROOT, file), 'utf8')),
  );
}

describe('source names', () => {
  it('recognises an archive name in prose, across a line break and in a file name, and nothing else', () => {
    const named = [
      "seed 002's payments",
      'Seed\n000 bounds admission',
      '(C28-10)',
      'test/seed-004-designs.test.ts',
    ];
    const plain = ['--seed 7', 'payment-seed-workers', 'seed 2026', 'explore/hot-row-seed1.spec', 'C28 rows'];
    expect(named.filter((text) => !ARCHIVE_NAME.test(text))).toEqual([]);
    expect(plain.filter((text) => ARCHIVE_NAME.test(text))).toEqual([]);
  });

  it('appear nowhere but on docs/sources.md', () => {
    expect(filesNamingTheArchive().filter((file) => !ALLOWED.includes(file))).toEqual([]);
  });
});
