/** The Markdown of a report's `sources` (run and bench alike): which code each design and scenario was. */
import type { SourceEntry } from '../registry/source-manifest.ts';
import { markdownTable } from './markdown-table.ts';

export function sourceLines(sources: readonly SourceEntry[] | undefined): string[] {
  if (!sources?.length) return [];
  return [
    '## Sources',
    '',
    'SHA-256 over each design and scenario file and the local files it pulls in (imports, SQL it reads);',
    'two runs with the same digest ran the same code for it. The harness is the commit above.',
    '',
    markdownTable([
      ['kind', 'id', 'file', 'files', 'sha256'],
      ...sources.map((s) => [s.kind, s.id, s.file, String(s.files.length), s.sha256]),
    ]),
    '',
  ];
}
