/**
 * The options of `reservebench serve`, declared once (command-definition.ts), apart from its work
 * (serve-action.ts): every start reads them, the work's modules load only when the command runs.
 */

import { CATALOGS } from '../../contracts/catalogs.ts';
import { Errors } from '../../errors.ts';
import { MAX_STOCK, shown } from '../cli-arguments.ts';
import { flag, type ParsedOf } from '../command-definition.ts';
import { GATE_OPTIONS } from '../gate-options.ts';
import { integer, parsed } from '../option-types.ts';
import { admissionOption, databaseOption, oneStrategyOption, postgresOption } from './shared-options.ts';

/** Instances one `serve --instances` starts at most. */
export const MAX_INSTANCES = 16;

const NOT_WITH_INSTANCES = { excludes: { instances: 'the instances share a schema of their own' } };

/** Nodes a service may be split into (`--node I/N`). */
const MAX_NODES = 64;

/** `--node I/N`: this process is node I (1-based) of N. */
function readNode(text: string, label: string): { index: number; count: number } {
  const match = /^([1-9][0-9]*)\/([1-9][0-9]*)$/.exec(text);
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || index > count || count > MAX_NODES) {
    throw Errors.badInput(
      `${label} must be I/N with 1 ≤ I ≤ N ≤ ${MAX_NODES} (e.g. 2/3), got ${shown(text)}`,
    );
  }
  return { index: index - 1, count };
}

/** What `--schema` must match: the schema name of the first contract listed that has a service. */
const SCHEMA_NAME = CATALOGS.find((c) => c.service !== undefined)?.service?.schemaName;

function readSchema(schema: string, label: string): string {
  if (!SCHEMA_NAME?.test(schema)) {
    throw Errors.badInput(
      `${label} must be a lower-case identifier (a-z, 0-9, _; at most 63), got ${shown(schema)}`,
    );
  }
  return schema;
}

export const SERVE_OPTIONS = {
  ...oneStrategyOption(
    'the strategy id or module path to serve',
    (label, text, count) =>
      count === 0
        ? `${label} must not be empty, got ${shown(text)}`
        : `${label}: serve runs one strategy, got ${shown(text)}`,
    { default: 'hot-row' },
  ),
  port: integer('TCP port on 127.0.0.1 (0: any free port)', { min: 0, max: 65_535, default: 8080 }),
  ...admissionOption('bounded admission: requests served at once, and waiting for a turn', {
    default: '4:8',
  }),
  'wait-ms': integer('longest wait for an admission permit', { min: 1, max: 60_000, default: 400 }),
  'work-ms': integer('extra work per admitted request, before its transaction', {
    min: 0,
    max: 60_000,
    default: 0,
  }),
  stock: integer('units of sku-lab-01', { min: 0, max: MAX_STOCK, default: 40 }),
  'expire-every-ms': integer("period of the expiry job, which runs the strategy's expire (0: off)", {
    min: 0,
    max: 3_600_000,
    default: 1000,
  }),
  'log-json': flag('one JSON line per request on stdout'),
  ...databaseOption(),
  ...postgresOption("the embedded server's major (one: a service runs on one server)"),
  schema: parsed(
    'with --database-url (or DATABASE_URL): use that database as it is, the tables in this schema (shared by every serve given it; kept at exit)',
    { form: 'NAME', read: readSchema, ...NOT_WITH_INSTANCES },
  ),
  node: parsed('this process is node I of N: a memory design sells its share', {
    form: 'I/N',
    range: `N ≤ ${MAX_NODES}`,
    default: '1/1',
    read: readNode,
    ...NOT_WITH_INSTANCES,
  }),
  'allow-reset': flag('turn on POST /admin/reset, which replaces the tables with the stock it is given'),
  instances: integer(
    'run this many instances of the service on one shared schema, ports P, P+1, … (docs/scale.md)',
    {
      min: 1,
      max: MAX_INSTANCES,
      absent: '1',
    },
  ),
  ...GATE_OPTIONS,
};

export type ServeArgs = ParsedOf<typeof SERVE_OPTIONS>;
