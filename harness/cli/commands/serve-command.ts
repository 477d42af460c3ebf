/** `reservebench serve`: every option checked, the strategy loaded, then the service started. */

import { Errors } from '../../errors.ts';
import { serve } from '../../http/serve.ts';
import { loadStrategy } from '../../registry/registry.ts';
import { admissionFrom, boundedInteger, databaseUrlFrom, list, MAX_STOCK, shown } from '../cli-arguments.ts';

export interface ServeArgs {
  strategy?: unknown;
  port?: unknown;
  admission?: unknown;
  'wait-ms'?: unknown;
  'work-ms'?: unknown;
  stock?: unknown;
  'database-url'?: unknown;
}

export async function serveCommand(args: ServeArgs): Promise<number> {
  const names = list('strategy', args.strategy);
  if (names.length > 1) {
    throw Errors.badInput(`--strategy: serve runs one strategy, got ${shown(names.join(','))}`);
  }
  const gate = admissionFrom(args.admission) ?? { limit: 4, maxWaiting: 8 };
  const port = boundedInteger('port', args.port, 0, 65_535) ?? 8080;
  const waitMs = boundedInteger('wait-ms', args['wait-ms'], 1, 60_000) ?? 400;
  const workMs = boundedInteger('work-ms', args['work-ms'], 0, 60_000) ?? 0;
  const stock = boundedInteger('stock', args.stock, 0, MAX_STOCK) ?? 40;
  const databaseUrl = databaseUrlFrom(args);
  const ref = await loadStrategy(names[0] ?? 'hot-row');
  return serve({
    ref,
    port,
    admission: { ...gate, waitMs },
    workMs,
    stock,
    ...(databaseUrl ? { databaseUrl } : {}),
  });
}
