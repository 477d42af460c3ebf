/**
 * Where `serve` keeps the strategy's tables, and how POST /admin/reset replaces them.
 *
 * By default a run database of its own (embedded, or created on the server `--database-url` names), dropped
 * at exit. With `--schema NAME` (and `--database-url`) the database the URL names is used as it is: the
 * tables live in schema NAME, which the first `serve` creates (marked with a comment naming the strategy)
 * and every later one given the same URL and schema finds and uses as it is — two processes, one set of
 * tables, as two instances of a service behind a load balancer. Such a schema outlives every process (a
 * restarted node must find its ledger), so `serve` never drops it at exit; it refuses a schema it did not
 * create (no marker) and one that holds another strategy's tables, and a reset drops only a marked schema.
 */
import pg from 'pg';
import type { StockLine, Strategy, StrategyRef } from '../../../../strategies/contract.ts';
import { openRunDatabase } from '../../../database/database.ts';
import { belowMinimum } from '../../../database/postgres-minimum.ts';
import type { PostgresMajor } from '../../../database/postgres-versions.ts';
import { redact } from '../../../database/redact.ts';
import { Errors, oneLine } from '../../../errors.ts';
import { checkSqlDesignsInstall } from '../designs/sql-design-check.ts';

/** The comment that marks a schema as made by `serve` for one strategy, so it may be reused and dropped. */
export function schemaMarker(strategyId: string): string {
  return `created by reservebench serve for strategy ${strategyId}; safe to drop`;
}

const MARKER = /^created by reservebench serve for strategy (\S+); safe to drop$/;

export interface ServiceTables {
  connectionString: string;
  schema: string;
  /** A connection of serve's own for the connection preflight (each reset opens one of its own). */
  admin: pg.Client;
  /** `schema x (shared, reused)` or `its own run database`, for the `listening on` line. */
  where: string;
  /** Drops the strategy's tables and makes them again with `stock` (POST /admin/reset). */
  reset(stock: readonly StockLine[]): Promise<void>;
  /** Lets go of the database: the own run database is dropped, a shared schema stays. Lines for the user. */
  close(): Promise<string[]>;
}

/** Session-level advisory lock per schema: resets and first starts of the serves sharing it take turns. */
async function underLock<T>(admin: pg.Client, schema: string, work: () => Promise<T>): Promise<T> {
  await admin.query("SELECT pg_advisory_lock(hashtext('reservebench-serve:' || $1))", [schema]);
  try {
    return await work();
  } finally {
    await admin
      .query("SELECT pg_advisory_unlock(hashtext('reservebench-serve:' || $1))", [schema])
      .catch(() => undefined);
  }
}

/** An admin connection of serve's own, connected; one a server cut reports its 'error' to nobody. */
async function adminConnection(connectionString: string): Promise<pg.Client> {
  const client = new pg.Client({
    connectionString,
    application_name: 'reservebench-serve-admin',
    connectionTimeoutMillis: 5_000,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error: unknown) {
    await client.end().catch(() => undefined);
    throw Errors.databaseUnreachable(redact(connectionString), oneLine(error));
  }
  return client;
}

/**
 * A connection of its own for one reset: the one kept since the start may have been cut since (a server
 * restart, a failover), and a cut connection is never queried again.
 */
async function onFreshConnection(connectionString: string, work: (client: pg.Client) => Promise<void>) {
  const client = await adminConnection(connectionString);
  try {
    await work(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function freshTables(
  admin: pg.Client,
  schema: string,
  strategy: Strategy,
  stock: readonly StockLine[],
  marker?: string,
): Promise<void> {
  const name = pg.escapeIdentifier(schema);
  await admin.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
  await admin.query(`CREATE SCHEMA ${name}`);
  if (marker) await admin.query(`COMMENT ON SCHEMA ${name} IS ${pg.escapeLiteral(marker)}`);
  await admin.query(`SET search_path TO ${name}`);
  await strategy.setup(admin, stock);
}

/** The schema's marker, `null` when it has another comment or none, `undefined` when there is no schema. */
async function markerOf(admin: pg.Client, schema: string): Promise<string | null | undefined> {
  const { rows } = await admin.query<{ comment: string | null }>(
    "SELECT obj_description(oid, 'pg_namespace') AS comment FROM pg_namespace WHERE nspname = $1",
    [schema],
  );
  const row = rows[0];
  if (!row) return undefined;
  return row.comment !== null && MARKER.test(row.comment) ? row.comment : null;
}

/**
 * Before its tables are made, in one line each: a design the server is too old for, and a design in SQL
 * whose file the server refuses (as run and bench check it before any case).
 */
async function refuseUnservable(admin: pg.Client, ref: StrategyRef): Promise<void> {
  const { rows } = await admin.query<{ n: string }>("SELECT current_setting('server_version_num') AS n");
  const why = belowMinimum(ref.strategy, Number(rows[0]?.n));
  if (why) throw Errors.badInput(`cannot serve ${ref.strategy.id} on this server: it ${why}`);
  await checkSqlDesignsInstall(admin, [ref]);
}

async function sharedSchema(
  databaseUrl: string,
  schema: string,
  ref: StrategyRef,
  stock: readonly StockLine[],
): Promise<ServiceTables> {
  const { strategy } = ref;
  const admin = await adminConnection(databaseUrl);
  const mine = schemaMarker(strategy.id);
  /** The schema is ours to use (and drop) only when it carries this strategy's marker. */
  const checkOwned = (found: string | null | undefined) => {
    if (found === null) {
      throw Errors.badInput(
        `--schema ${schema}: the schema exists and was not created by reservebench serve; name another (serve only uses and drops schemas it marked)`,
      );
    }
    const holder = found === undefined ? undefined : MARKER.exec(found)?.[1];
    if (holder !== undefined && holder !== strategy.id) {
      throw Errors.badInput(
        `--schema ${schema} holds the tables of strategy ${holder}, not ${strategy.id}; name another schema`,
      );
    }
  };
  let created = false;
  try {
    await refuseUnservable(admin, ref);
    await underLock(admin, schema, async () => {
      const found = await markerOf(admin, schema);
      checkOwned(found);
      if (found === undefined) {
        await freshTables(admin, schema, strategy, stock, mine);
        created = true;
      } else {
        await admin.query(`SET search_path TO ${pg.escapeIdentifier(schema)}`);
      }
    });
  } catch (error: unknown) {
    await admin.end().catch(() => undefined);
    throw error;
  }
  return {
    connectionString: databaseUrl,
    schema,
    admin,
    where: `schema ${schema} of ${redact(databaseUrl)} (${created ? 'created' : 'found and reused'}; shared, kept at exit)`,
    reset: (lines) =>
      onFreshConnection(databaseUrl, (client) =>
        underLock(client, schema, async () => {
          checkOwned(await markerOf(client, schema));
          await freshTables(client, schema, strategy, lines, mine);
        }),
      ),
    async close() {
      await admin.end().catch(() => undefined);
      return [
        `kept schema ${schema} (shared by every serve given it; drop it with DROP SCHEMA ${schema} CASCADE)`,
      ];
    },
  };
}

export async function openServiceTables(options: {
  ref: StrategyRef;
  stock: readonly StockLine[];
  databaseUrl?: string;
  postgres?: PostgresMajor | undefined;
  schema?: string;
}): Promise<ServiceTables> {
  const { ref, stock } = options;
  const { strategy } = ref;
  if (options.schema !== undefined) {
    if (!options.databaseUrl) throw new Error('a shared schema needs a database URL');
    return sharedSchema(options.databaseUrl, options.schema, ref, stock);
  }
  const db = await openRunDatabase({ databaseUrl: options.databaseUrl, postgres: options.postgres });
  let schema: string;
  try {
    await refuseUnservable(db.admin, ref);
    schema = await db.createCaseSchema(`service_${strategy.id}`);
    await db.admin.query(`SET search_path TO ${schema}`);
    await strategy.setup(db.admin, stock);
  } catch (error: unknown) {
    await db.close({ keep: false });
    throw error;
  }
  return {
    connectionString: db.connectionString,
    schema,
    get admin() {
      return db.admin;
    },
    where: `its own run database ${db.name}`,
    // Inside the run database this process created: the schema is its own to drop.
    reset: (lines) =>
      onFreshConnection(db.connectionString, (client) => freshTables(client, schema, strategy, lines)),
    close: () => db.close({ keep: false }),
  };
}
