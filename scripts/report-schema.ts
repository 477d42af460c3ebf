/**
 * Writes docs/report.schema.json and docs/bench-report.schema.json from the zod definitions of the report
 * documents (harness/report/report-schema.ts, bench-report-schema.ts), formatted the way biome checks them.
 * Run it after changing a report's shape: `npx tsx scripts/report-schema.ts`.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SCHEMA_FILES } from '../harness/report/schema-files.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const biome = fileURLToPath(new URL('../node_modules/.bin/biome', import.meta.url));

for (const file of SCHEMA_FILES) {
  writeFileSync(new URL(`../${file.path}`, import.meta.url), `${JSON.stringify(file.schema(), null, 2)}\n`);
}
execFileSync(biome, ['format', '--write', ...SCHEMA_FILES.map((f) => f.path)], {
  cwd: root,
  stdio: 'inherit',
});
process.stdout.write(`wrote ${SCHEMA_FILES.map((f) => f.path).join(', ')}\n`);
