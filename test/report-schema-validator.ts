/**
 * The committed JSON Schemas (docs/report.schema.json, docs/bench-report.schema.json) compiled with ajv, an
 * independent JSON Schema validator: what a reader of the docs relies on, checked against real reports.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

function compile(path: string): ValidateFunction {
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  // ajv-formats is not a dependency: RFC 3339 date-times, as `new Date().toISOString()` writes them.
  ajv.addFormat('date-time', (s: string) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(s));
  return ajv.compile(JSON.parse(readFileSync(new URL(`../${path}`, import.meta.url), 'utf8')));
}

const validators = new Map<string, ValidateFunction>();

/** The ajv errors of `document` against the committed schema at `path`, one line each (empty: valid). */
export function schemaErrors(
  document: unknown,
  path: 'docs/report.schema.json' | 'docs/bench-report.schema.json' = 'docs/report.schema.json',
): string[] {
  const validate = validators.get(path) ?? compile(path);
  validators.set(path, validate);
  if (validate(document)) return [];
  return (validate.errors ?? []).map(
    (e) => `${e.instancePath || '/'} ${e.message ?? 'invalid'} ${JSON.stringify(e.params)}`,
  );
}
