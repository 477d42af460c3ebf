/** `reservebench serve`: every option checked, the strategy loaded, then the service started. */

import { Errors } from '../../errors.ts';
import { serve } from '../../http/serve.ts';
import { serveInstances } from '../../http/serve-instances.ts';
import { SCHEMA_NAME } from '../../http/service-tables.ts';
import { loadStrategy } from '../../registry/registry.ts';
import {
  admissionFrom,
  boundedInteger,
  databaseUrlFrom,
  list,
  MAX_STOCK,
  onePostgresMajor,
  shown,
  single,
} from '../cli-arguments.ts';
import { type ArgsOf, defineCommand, flag, value } from '../command-definition.ts';
import { GATE_OPTION_TEXT, gateChoiceFrom } from '../gate-options.ts';

const OPTIONS = {
  strategy: value('strategy id or module path (hot-row)'),
  port: value('TCP port on 127.0.0.1 (8080; 0: any free port)'),
  admission: value('bounded admission LIMIT:WAITING (4:8)'),
  'wait-ms': value('longest wait for an admission permit (400)'),
  'work-ms': value('extra work per admitted request, before its transaction (0)'),
  stock: value('units of sku-lab-01 (40)'),
  'expire-every-ms': value("period of the expiry job, which runs the strategy's expire (1000; 0: off)"),
  'log-json': flag('one JSON line per request on stdout'),
  'database-url': value('PostgreSQL server instead of the embedded one'),
  postgres: value("the embedded server's major, 14–18 (default 18)"),
  schema: value(
    'with --database-url: use that database as it is, the tables in this schema (shared by every serve given it; kept at exit)',
  ),
  node: value('this process is node I of N (I/N, default 1/1): a memory design sells its share'),
  'allow-reset': flag('turn on POST /admin/reset, which replaces the tables with the stock it is given'),
  instances: value(
    'run N instances of the service on one shared schema, ports P, P+1, … (1; up to 16): see docs/scale.md',
  ),
  gate: value(GATE_OPTION_TEXT.gate),
  'gate-failure': value(GATE_OPTION_TEXT['gate-failure']),
  'gate-lease-ms': value(GATE_OPTION_TEXT['gate-lease-ms']),
  'redis-url': value(GATE_OPTION_TEXT['redis-url']),
};

/** Instances one `serve --instances` starts at most. */
export const MAX_INSTANCES = 16;

export type ServeArgs = ArgsOf<typeof OPTIONS>;

/** Nodes a service may be split into (`--node I/N`). */
const MAX_NODES = 64;

/** `--node I/N`: this process is node I (1-based) of N. */
function nodeFrom(value: unknown): { index: number; count: number } | undefined {
  const text = single('node', value);
  if (text === undefined) return undefined;
  const match = /^([1-9][0-9]*)\/([1-9][0-9]*)$/.exec(text);
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || index > count || count > MAX_NODES) {
    throw Errors.badInput(`--node must be I/N with 1 ≤ I ≤ N ≤ ${MAX_NODES} (e.g. 2/3), got ${shown(text)}`);
  }
  return { index: index - 1, count };
}

function schemaFrom(value: unknown, databaseUrl: string | undefined): string | undefined {
  const schema = single('schema', value);
  if (schema === undefined) return undefined;
  if (!SCHEMA_NAME.test(schema)) {
    throw Errors.badInput(
      `--schema must be a lower-case identifier (a-z, 0-9, _; at most 63), got ${shown(schema)}`,
    );
  }
  if (!databaseUrl) {
    throw Errors.badInput(
      '--schema needs --database-url (or DATABASE_URL): serves share tables only on a server they all reach',
    );
  }
  return schema;
}

export async function serveCommand(args: ServeArgs): Promise<number> {
  const names = list('strategy', args.strategy);
  if (names.length > 1) {
    throw Errors.badInput(`--strategy: serve runs one strategy, got ${shown(names.join(','))}`);
  }
  const gate = admissionFrom(args.admission) ?? { limit: 4, maxWaiting: 8 };
  const gateChoice = gateChoiceFrom(args);
  const port = boundedInteger('port', args.port, 0, 65_535) ?? 8080;
  const waitMs = boundedInteger('wait-ms', args['wait-ms'], 1, 60_000) ?? 400;
  const workMs = boundedInteger('work-ms', args['work-ms'], 0, 60_000) ?? 0;
  const stock = boundedInteger('stock', args.stock, 0, MAX_STOCK) ?? 40;
  const expireEveryMs = boundedInteger('expire-every-ms', args['expire-every-ms'], 0, 3_600_000) ?? 1000;
  const databaseUrl = databaseUrlFrom(args);
  const schema = schemaFrom(args.schema, databaseUrl);
  const postgres = onePostgresMajor(args.postgres, databaseUrl, 'for a service: it runs on one server');
  const node = nodeFrom(args.node);
  const instances = boundedInteger('instances', args.instances, 1, MAX_INSTANCES);
  const ref = await loadStrategy(names[0] ?? 'hot-row');
  if (instances !== undefined) {
    const clash = (['schema', 'node'] as const).find((name) => args[name] !== undefined);
    if (clash)
      throw Errors.badInput(
        `--${clash} cannot go with --instances: the instances share a schema of their own`,
      );
    return serveInstances({
      instances,
      strategy: names[0] ?? 'hot-row',
      port,
      admission: { ...gate, waitMs },
      gate: gateChoice,
      workMs,
      stock,
      expireEveryMs,
      logJson: args['log-json'],
      allowReset: args['allow-reset'],
      databaseUrl,
      postgres,
    });
  }
  return serve({
    ref,
    port,
    admission: { ...gate, waitMs },
    gate: gateChoice,
    workMs,
    stock,
    expireEveryMs,
    logJson: args['log-json'],
    allowReset: args['allow-reset'],
    databaseUrl,
    postgres,
    schema,
    node,
  });
}

export const SERVE = defineCommand({
  name: 'serve',
  describe: 'serve reserve, confirm, release, lookups, stock and metrics over HTTP in front of one strategy',
  options: OPTIONS,
  run: serveCommand,
});
