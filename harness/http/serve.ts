/**
 * `reservebench serve`: the HTTP service in front of one strategy, on its own run database (embedded by
 * default). SIGTERM/SIGINT stop accepting, let admitted requests finish, close the pool, then drop the run
 * database and stop the embedded server.
 */
import type { StrategyRef } from '../../strategies/contract.ts';
import { openRunDatabase } from '../database/database.ts';
import { nodeIdentity } from '../driver/node-identity.ts';
import type { AdmissionSettings } from './admission.ts';
import { startReservationService } from './reservation-service.ts';

export const SERVICE_SKU = 'sku-lab-01';

export interface ServeOptions {
  ref: StrategyRef;
  port: number;
  admission: AdmissionSettings;
  workMs: number;
  stock: number;
  databaseUrl?: string;
}

export async function serve(options: ServeOptions): Promise<number> {
  const db = await openRunDatabase(options.databaseUrl ? { databaseUrl: options.databaseUrl } : {});
  const schema = await db.createCaseSchema(`service_${options.ref.strategy.id}`);
  await db.admin.query(`SET search_path TO ${schema}`);
  await options.ref.strategy.setup(db.admin, [{ sku: SERVICE_SKU, total: options.stock }]);
  const service = await startReservationService(
    {
      strategy: options.ref.strategy,
      connectionString: db.connectionString,
      schema,
      admission: options.admission,
      workMs: options.workMs,
      node: nodeIdentity(schema, 0, 1),
    },
    options.port,
  );
  const { limit, maxWaiting, waitMs } = options.admission;
  process.stdout.write(
    `listening on ${service.url} — strategy ${options.ref.strategy.id}, ${options.stock} units of ${SERVICE_SKU}, admission ${limit}:${maxWaiting} (wait ${waitMs} ms)\n`,
  );
  // This process decides the shutdown order (drain HTTP, then the database), so the embedded server's own
  // signal hooks, which would stop PostgreSQL under admitted requests, are replaced.
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    for (const name of ['SIGINT', 'SIGTERM'] as const) {
      process.removeAllListeners(name);
      process.once(name, () => resolve(name));
    }
  });
  process.stdout.write(`${signal}: draining admitted requests\n`);
  await service.close();
  await db.close({ keep: false });
  process.stdout.write('stopped\n');
  return 0;
}
