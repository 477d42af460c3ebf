/** Config files for `--config` tests, written into a folder of the test file's own. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ConfigFiles {
  folder: string;
  /** Writes `content` (JSON, or a string as it is) to a new file; its path. */
  file(content: unknown): string;
  remove(): void;
}

export function configFiles(): ConfigFiles {
  const folder = mkdtempSync(join(tmpdir(), 'reservebench-config-'));
  let written = 0;
  return {
    folder,
    file: (content) => {
      written += 1;
      const path = join(folder, `config-${written}.json`);
      writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
      return path;
    },
    remove: () => rmSync(folder, { recursive: true, force: true }),
  };
}

/** A report.json as run and bench write it, reduced to what `--config` reads. */
export const reportWith = (configuration: unknown) => ({
  ok: true,
  generatedAt: '2026-12-03T00:00:00.000Z',
  environment: {},
  configuration,
});
