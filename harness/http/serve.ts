/**
 * `reservebench serve`: the HTTP service in front of one strategy, on its own run database (embedded by
 * default), with its expiry job. SIGTERM/SIGINT stop accepting and the expiry job, let admitted requests
 * and a run in progress finish, close the pools, then drop the run database and stop the embedded server.
 * With `logJson`, every request is one JSON line on stdout (the other lines are plain text and never start
 * with `{`). With `schema`, the tables live in that schema of the database the URL names, shared by every
 * serve given the same one and kept at exit (service-tables.ts); `allowReset` turns on POST /admin/reset.
 */
import type { StrategyRef } from '../../strategies/contract.ts';
import type { PostgresMajor } from '../database/postgres-versions.ts';
import { checkConnectionRoom } from '../database/preflight.ts';
import { nodeIdentity } from '../driver/node-identity.ts';
import type { AdmissionSettings } from '../gate/admission.ts';
import { type GateChoice, LOCAL_GATE } from '../gate/gate.ts';
import { gateLine } from '../gate/open-gate.ts';
import { FrontDoor } from './front-door.ts';
import { closeListener, listenOn, portOf } from './listener.ts';
import { startReservationService } from './reservation-service.ts';
import { openServiceTables, type ServiceTables } from './service-tables.ts';

export const SERVICE_SKU = 'sku-lab-01';

export interface ServeOptions {
  ref: StrategyRef;
  port: number;
  admission: AdmissionSettings;
  /** Each lane's gate: local (default), or shared by every instance given the same store and schema. */
  gate?: GateChoice;
  workMs: number;
  stock: number;
  /** The expiry job's period; 0: no job. */
  expireEveryMs: number;
  logJson: boolean;
  databaseUrl?: string;
  /** The embedded server's major (`--postgres`; default 18); not with `databaseUrl`. */
  postgres?: PostgresMajor | undefined;
  /** Use the database `databaseUrl` names as it is, with the tables in this schema (shared by several serves). */
  schema?: string;
  /** Which node this process is: 0-based index of `count` (`--node I/N`); memory designs sell index's share. */
  node?: { index: number; count: number };
  /** POST /admin/reset replaces the tables with the stock it is given (a test endpoint). */
  allowReset?: boolean;
}

/** The strategy's tables, on a server with room for the service's pools. */
async function checkedTables(options: ServeOptions): Promise<ServiceTables> {
  const tables = await openServiceTables({
    ref: options.ref,
    stock: [{ sku: SERVICE_SKU, total: options.stock }],
    databaseUrl: options.databaseUrl,
    postgres: options.postgres,
    schema: options.schema,
  });
  try {
    // Reservations and lookups each get a pool of exactly `limit` connections; the expiry job one more, and a
    // gate whose permits are in PostgreSQL two per lane (postgres-permits.ts).
    const connections =
      2 * options.admission.limit +
      (options.expireEveryMs > 0 ? 1 : 0) +
      (options.gate?.kind === 'postgres' ? 4 : 0);
    await checkConnectionRoom(tables.admin, connections, 'give a lower --admission LIMIT');
  } catch (error: unknown) {
    await tables.close();
    throw error;
  }
  return tables;
}

export async function serve(options: ServeOptions): Promise<number> {
  const { strategy } = options.ref;
  // Before any database: a port that cannot be had is refused with nothing to clean up. From here on every
  // request is answered: 503 STARTING until the service is ready (front-door.ts).
  const listener = await listenOn(options.port);
  const front = new FrontDoor(listener);
  process.stdout.write(`starting on http://127.0.0.1:${portOf(listener)} (503 STARTING until ready)\n`);
  const tables = await checkedTables(options).catch(async (error: unknown) => {
    await closeListener(listener);
    throw error;
  });
  const { schema } = tables;
  const { index, count } = options.node ?? { index: 0, count: 1 };
  // Every reset starts a new incarnation of this node: memory kept for the old tables is not found again.
  let generation = 1;
  const service = await startReservationService(
    {
      strategy,
      connectionString: tables.connectionString,
      schema,
      admission: options.admission,
      gate: options.gate ?? LOCAL_GATE,
      workMs: options.workMs,
      node: nodeIdentity(schema, index, count, generation),
      expireEveryMs: options.expireEveryMs,
      skus: [SERVICE_SKU],
      ...(options.logJson ? { log: (entry) => process.stdout.write(`${JSON.stringify(entry)}\n`) } : {}),
      ...(options.allowReset
        ? {
            reset: async (stock) => {
              await tables.reset(stock);
              generation += 1;
              return nodeIdentity(schema, index, count, generation);
            },
          }
        : {}),
    },
    front,
  ).catch(async (error: unknown) => {
    await closeListener(listener);
    await tables.close();
    throw error;
  });
  const { limit, maxWaiting, waitMs } = options.admission;
  const { expiry } = service.counters();
  const expiring = expiry.enabled
    ? `expiry every ${expiry.everyMs} ms`
    : expiry.everyMs > 0
      ? 'no expiry (the strategy has no expire)'
      : 'no expiry';
  // This process decides the shutdown order (drain HTTP, then the database), so the embedded server's own
  // signal hooks, which would stop PostgreSQL under admitted requests, are replaced — before the line
  // below, so a signal sent the moment a supervisor reads it is never lost.
  const signal = new Promise<NodeJS.Signals>((resolve) => {
    for (const name of ['SIGINT', 'SIGTERM'] as const) {
      process.removeAllListeners(name);
      process.once(name, () => resolve(name));
    }
  });
  process.stdout.write(
    `listening on ${service.url} — strategy ${options.ref.strategy.id} (node ${index + 1}/${count}, ${tables.where}${options.allowReset ? ', POST /admin/reset on' : ''}), ${options.stock} units of ${SERVICE_SKU}, admission ${limit}:${maxWaiting} (wait ${waitMs} ms), gate ${gateLine(service.gate)}, ${expiring}\n`,
  );
  process.stdout.write(`${await signal}: draining admitted requests\n`);
  await service.close();
  for (const line of await tables.close()) process.stdout.write(`${line}\n`);
  process.stdout.write('stopped\n');
  return 0;
}
