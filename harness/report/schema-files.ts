/**
 * The JSON Schema files generated from the zod definitions of the two report documents, and where they
 * are committed. `npx tsx scripts/report-schema.ts` writes them; test/report-schema.test.ts fails when a
 * committed one no longer matches its definition.
 */
import { benchReportJsonSchema } from './bench-report-schema.ts';
import { reportJsonSchema } from './report-schema.ts';

export interface SchemaFile {
  /** Relative to the repository root. */
  path: string;
  schema(): Record<string, unknown>;
}

export const SCHEMA_FILES: readonly SchemaFile[] = [
  { path: 'docs/report.schema.json', schema: reportJsonSchema },
  { path: 'docs/bench-report.schema.json', schema: benchReportJsonSchema },
];
