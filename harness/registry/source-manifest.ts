/**
 * Which code a run ran, as the isolation-matrix chapter's manifest records it: per design and scenario, the
 * SHA-256 of its file and of the files it pulls in (relative imports, SQL it reads through
 * `new URL(…, import.meta.url)`), so a reviewer can tell two runs of different code apart even when a plug-in lives
 * outside this repository. The harness itself is not followed: the environment's commit names it.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface SourceEntry {
  kind: 'design' | 'scenario';
  id: string;
  /** The entry file, relative to the repository when inside it, else absolute. */
  file: string;
  /** SHA-256 over every file below, each as its path and its own digest, in path order. */
  sha256: string;
  /** The files that went into the digest: the entry file and what it pulls in, transitively. */
  files: string[];
}

const REPOSITORY = resolve(fileURLToPath(new URL('../../', import.meta.url)));
const HARNESS = resolve(REPOSITORY, 'harness');
const LOCAL_REFERENCE = /(?:from\s+|import\s*\(\s*|new URL\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g;

const shown = (path: string) =>
  path.startsWith(REPOSITORY + sep) ? relative(REPOSITORY, path).split(sep).join('/') : path;

/** The file and every local file it references, transitively, stopping at the harness. */
function filesPulledIn(entry: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file) || !existsSync(file)) return;
    seen.add(file);
    if (!/\.[cm]?[jt]s$/.test(file)) return;
    for (const [, reference] of readFileSync(file, 'utf8').matchAll(LOCAL_REFERENCE)) {
      const target = resolve(dirname(file), reference as string);
      if (!target.startsWith(HARNESS + sep)) visit(target);
    }
  };
  visit(entry);
  return [...seen].sort();
}

const digest = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/** One entry for a module (a `file:` URL, any fragment or query ignored: a variant is its design's code). */
export function sourceEntry(kind: SourceEntry['kind'], id: string, moduleUrl: string): SourceEntry {
  const url = new URL(moduleUrl);
  url.hash = '';
  url.search = '';
  const entry = fileURLToPath(url);
  const files = filesPulledIn(entry);
  const combined = files.map((f) => `${shown(f)} ${digest(readFileSync(f))}\n`).join('');
  return { kind, id, file: shown(entry), sha256: digest(combined), files: files.map(shown) };
}
