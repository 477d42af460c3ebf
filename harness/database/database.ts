/**
 * Where a run keeps its tables: a fresh database of its own (`reservebench_<stamp>_<suffix>`, marked by a
 * comment), on the embedded server by default or on the server `--database-url` names. Each case gets a
 * fresh schema inside it. The suite drops only databases that carry its marker, so it never damages
 * anything it did not create.
 */
import exitHook from 'async-exit-hook';
import pg from 'pg';
import { Errors, oneLine } from '../errors.ts';
import { wasInterrupted } from '../interrupted.ts';
import { type Capabilities, probeCapabilities } from './capabilities.ts';
import { DEFAULT_DURABILITY, type Durability } from './durability.ts';
import { databaseDurabilityStatement } from './durability-statement.ts';
import { type EmbeddedServer, startEmbeddedServer } from './embedded-server.ts';
import type { PostgresMajor } from './postgres-versions.ts';
import { redact } from './redact.ts';
import { megabytes, removeRunState, writeRunState } from './run-state.ts';

export const OWNED_MARKER = 'created by reservebench; safe to drop';
const CONNECT_TIMEOUT_MS = 5_000;

export interface RunDatabase {
  name: string;
  /**
   * The run database as every session of the run reaches it: through the embedded server's Unix-domain
   * socket where it has one (embedded-server.ts `socketUrl`, `trust` in a directory only the server's user
   * can enter) — a loopback TCP connection costs the client and the server more CPU to open and to talk
   * over, and a run opens thousands —, else over TCP as the URL says. A proxy in between reaches the same
   * URL's TCP address (commit-ack-proxy.ts).
   */
  connectionString: string;
  /** A connection to the run database for setup and audits. */
  admin: pg.Client;
  /**
   * The server's `server_version_num` (180004): what a design's minimum major is checked against. Absent
   * for a black box, which has no server of the suite's.
   */
  serverVersionNum?: number;
  /** What the server let the run do when it connected (capabilities.ts); absent for a black box. */
  capabilities?: Capabilities;
  createCaseSchema(label: string): Promise<string>;
  dropCaseSchema(schema: string): Promise<void>;
  /** Drops the run database (or keeps it) and stops the embedded server; returns lines for the user. */
  close(options: { keep: boolean }): Promise<string[]>;
  /**
   * The embedded server only: crash it (immediate shutdown) and start it again, then reconnect `admin`.
   * Absent for a server the run was given by URL, which it has no way to restart.
   */
  crashAndRestart?(): Promise<void>;
  /**
   * Another run database on the same server, for cases run beside this run's (the explorer's designs side
   * by side): its own connections and schemas, so a case's search_path or deadline there touches only its
   * own sessions. Closed (dropped) by its own `close`, which leaves the server running. Absent for a black
   * box, which has no database of the suite's.
   */
  beside?(): Promise<RunDatabase>;
  /**
   * The embedded server only: a run database on a new embedded server of its own (the same major and
   * durability; its schemas numbered in this run's count), for the cases that reach the whole server
   * (crash it, change its settings): there they have a server to themselves while the other cases go on
   * here. Its `close` stops that server. Absent for a server given by URL, where such a case runs alone.
   */
  ownServer?(): Promise<RunDatabase>;
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** A connection named `applicationName`; an unreachable server is one line naming it, its password masked. */
export async function connect(connectionString: string, applicationName: string): Promise<pg.Client> {
  let parsedOk = true;
  try {
    new URL(connectionString);
  } catch {
    parsedOk = false;
  }
  if (!parsedOk) throw Errors.badInput(`not a PostgreSQL URL: ${redact(connectionString)}`);
  const client = new pg.Client({
    connectionString,
    application_name: applicationName,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
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

function stampName(): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '_').slice(0, 15);
  return `reservebench_${stamp}_${Math.random().toString(36).slice(2, 8)}`;
}

/** Drops a database only when its comment is the suite's marker. */
export async function dropOwnedDatabase(server: pg.Client, name: string): Promise<void> {
  const { rows } = await server.query<{ comment: string | null }>(
    "SELECT shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = $1",
    [name],
  );
  const row = rows[0];
  if (!row) return;
  if (row.comment !== OWNED_MARKER)
    throw Errors.badInput(`refusing to drop database ${name}: it was not created by reservebench`);
  await server.query(`DROP DATABASE ${pg.escapeIdentifier(name)} WITH (FORCE)`);
}

function keptEmbeddedLines(server: EmbeddedServer, database: string): string[] {
  return [
    `kept the embedded server's data in ${server.dataDir} (${megabytes(server.dataDir)}; remove it with: reservebench clean)`,
    `  look inside: npx reservebench sql ${server.dataDir}   (starts it again, opens ${database}; no psql needed)`,
  ];
}

function keptDatabaseLines(serverUrl: string, database: string): string[] {
  return [
    `kept database ${database} on ${redact(serverUrl)}; look inside: npx reservebench sql ${database}`,
    'remove it with: reservebench clean',
  ];
}

/** The server a run database lives on: its URL, a connection to it, and the embedded server if it is one. */
interface RunServer {
  url: string;
  client: pg.Client;
  embedded: EmbeddedServer | undefined;
}

async function connectServer(
  databaseUrl: string | undefined,
  postgres: PostgresMajor | undefined,
): Promise<RunServer> {
  const embedded = databaseUrl ? undefined : await startEmbeddedServer(postgres);
  const url = databaseUrl ?? embedded?.socketUrl ?? embedded?.adminUrl ?? '';
  try {
    return { url, client: await connect(url, 'reservebench-admin'), embedded };
  } catch (error: unknown) {
    await embedded?.stop({ keepData: false });
    throw error;
  }
}

/** Creates the run database with the suite's marker and connects to it; on a failure lets the server go. */
async function createRunDatabase(
  server: RunServer,
  durability: Durability,
  /** The server's capabilities when a run database on it was probed already (they are the server's). */
  probed: Capabilities | undefined,
  name: string,
): Promise<Pick<RunDatabase, 'connectionString' | 'admin' | 'serverVersionNum' | 'capabilities'>> {
  const connectionString = withDatabase(server.url, name);
  let created = false;
  try {
    // Checked in the same turn the CREATE is sent: a Ctrl-C before it makes nothing, one after it finds
    // this creation in flight and waits for it (dropOnInterrupt).
    if (wasInterrupted()) throw new Error('interrupted');
    await server.client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
    created = true;
    await server.client.query(
      `COMMENT ON DATABASE ${pg.escapeIdentifier(name)} IS ${pg.escapeLiteral(OWNED_MARKER)}`,
    );
    await server.client.query(databaseDurabilityStatement(name, durability));
    const { rows } = await server.client.query<{ n: string }>(
      "SELECT current_setting('server_version_num') AS n",
    );
    const admin = await connect(connectionString, 'reservebench-admin');
    const capabilities = probed ?? (await probeCapabilities(admin, connectionString));
    return { connectionString, admin, serverVersionNum: Number(rows[0]?.n), capabilities };
  } catch (error: unknown) {
    // This CREATE made it (marked or not yet): nothing else could have, so it goes, on a server of the
    // user's; an embedded server's whole directory goes with it.
    if (created && !server.embedded)
      await server.client
        .query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)}`)
        .catch(() => undefined);
    await server.client.end().catch(() => undefined);
    await server.embedded?.stop({ keepData: false });
    throw Errors.databaseSetup(oneLine(error));
  }
}

/** A run database being made on a server of the user's, as its Ctrl-C exit hook sees it. */
interface Making {
  /** Dropped or kept by the run, or dropped by the hook: whichever comes second leaves it alone. */
  closed: boolean;
  /** Its CREATE DATABASE, marker and first connection, in flight or settled. */
  creation?: Promise<unknown>;
}

/**
 * A run against another server: its state names the database, for `clean` after a kill -9, and Ctrl-C
 * drops the run database on the way out (the embedded server needs no such step, its whole directory
 * goes). Returns the state file.
 */
function dropOnInterrupt(serverUrl: string, name: string, making: Making): string {
  const stateFile = writeRunState({
    pid: process.pid,
    startedAt: new Date().toISOString(),
    serverUrl,
    database: name,
  });
  exitHook((done) => {
    if (making.closed || !done) return done?.();
    making.closed = true;
    // After the creation in flight settles: dropped before its CREATE and marker land, the database would
    // be found not there yet or unmarked (refused), and stay. Through a connection of its own: the run's
    // may be closing under it at this very moment.
    void Promise.resolve(making.creation)
      .catch(() => undefined)
      .then(() => connect(serverUrl, 'reservebench-cleanup'))
      .then((cleanup) => dropOwnedDatabase(cleanup, name).finally(() => cleanup.end()))
      .then(() => removeRunState(stateFile))
      .catch(() => undefined)
      .finally(done);
  });
  return stateFile;
}

/** What makeRunDatabase made: the parts of a RunDatabase that are the same for every kind. */
type MadeRunDatabase = Pick<
  RunDatabase,
  'name' | 'connectionString' | 'admin' | 'serverVersionNum' | 'capabilities'
>;

/**
 * Makes a run database on `server`. On a server of the user's (`userServer`) its state names it, for
 * `clean` after a kill -9, and Ctrl-C drops it, also when it comes while the database is being made and
 * probed (dropOnInterrupt); a failure to make it leaves no state behind.
 */
async function makeRunDatabase(
  server: RunServer,
  userServer: boolean,
  durability: Durability,
  probed: Capabilities | undefined,
): Promise<{ made: MadeRunDatabase; making: Making; stateFile: string | undefined }> {
  const name = stampName();
  const making: Making = { closed: false };
  const stateFile = userServer ? dropOnInterrupt(server.url, name, making) : undefined;
  const creation = createRunDatabase(server, durability, probed, name);
  making.creation = creation;
  const made = await creation.catch((error: unknown) => {
    making.closed = true;
    if (stateFile) removeRunState(stateFile);
    throw error;
  });
  return { made: { name, ...made }, making, stateFile };
}

/** The schema name of a run's `count`th case, from its label (an identifier of at most 63 bytes). */
function caseSchemaName(count: number, label: string): string {
  return `c${String(count).padStart(3, '0')}_${label.toLowerCase().replace(/[^a-z0-9]+/g, '_')}`.slice(0, 63);
}

/** How many case schemas a run has made, over its own database and those beside it. */
interface SchemaCount {
  made: number;
}

/**
 * Case schemas on a run database: numbered in the order they are made, one count over the run's own
 * database and those beside it, so no two cases of a run share a schema name — a design's node memory is
 * found by it (driver/node-identity.ts).
 */
function caseSchemas(
  admin: () => pg.Client,
  count: SchemaCount,
): Pick<RunDatabase, 'createCaseSchema' | 'dropCaseSchema'> {
  return {
    async createCaseSchema(label) {
      count.made += 1;
      const schema = caseSchemaName(count.made, label);
      await admin().query(`CREATE SCHEMA ${pg.escapeIdentifier(schema)}`);
      return schema;
    },
    async dropCaseSchema(schema) {
      await admin().query(`DROP SCHEMA ${pg.escapeIdentifier(schema)} CASCADE`);
    },
  };
}

/** A run database beside the run's own, on its server (RunDatabase.beside). */
async function besideRunDatabase(
  serverUrl: string,
  embedded: boolean,
  durability: Durability,
  probed: Capabilities | undefined,
  count: SchemaCount,
): Promise<RunDatabase> {
  const server: RunServer = {
    url: serverUrl,
    client: await connect(serverUrl, 'reservebench-admin'),
    embedded: undefined,
  };
  // Made while cases run: Ctrl-C may come at any step of it.
  const { made, making: closing, stateFile } = await makeRunDatabase(server, !embedded, durability, probed);
  const { name } = made;
  const run: RunDatabase = {
    ...made,
    // The admin connection of the moment: a crash and restart replaces it.
    ...caseSchemas(() => run.admin, count),
    beside: () => besideRunDatabase(serverUrl, embedded, durability, made.capabilities, count),
    async close({ keep }) {
      closing.closed = true;
      await run.admin.end().catch(() => undefined);
      try {
        // Kept (a failed case's tables, or --keep) on the server the run's own database is kept on.
        if (keep && !stateFile)
          return [`kept database ${name} too (cases run beside the others) in the embedded server's data`];
        if (keep && stateFile) {
          const kept = { pid: process.pid, startedAt: new Date().toISOString(), serverUrl, database: name };
          writeRunState({ ...kept, kept: true }, stateFile);
          return keptDatabaseLines(serverUrl, name);
        }
        await dropOwnedDatabase(server.client, name);
        if (stateFile) removeRunState(stateFile);
      } finally {
        await server.client.end().catch(() => undefined);
      }
      return [];
    },
  };
  return run;
}

export interface RunDatabaseOptions {
  databaseUrl?: string | undefined;
  durability?: Durability | undefined;
  /** The embedded server's major (ignored with a URL: that server is what it is). */
  postgres?: PostgresMajor | undefined;
}

export function openRunDatabase(options: RunDatabaseOptions): Promise<RunDatabase> {
  return openRunDatabaseCounting(options, { made: 0 });
}

/** A run database whose case schemas are numbered in `count` (a run's databases share one). */
async function openRunDatabaseCounting(
  options: RunDatabaseOptions,
  count: SchemaCount,
): Promise<RunDatabase> {
  const durability = options.durability ?? DEFAULT_DURABILITY;
  const server = await connectServer(options.databaseUrl, options.postgres);
  const { embedded } = server;
  const {
    made,
    making: closing,
    stateFile,
  } = await makeRunDatabase(server, !embedded, durability, undefined);
  const { name } = made;
  const run: RunDatabase = {
    ...made,
    // The admin connection of the moment: a crash and restart replaces it.
    ...caseSchemas(() => run.admin, count),
    beside: () => besideRunDatabase(server.url, embedded !== undefined, durability, made.capabilities, count),
    ...(embedded
      ? {
          ownServer: () => openRunDatabaseCounting({ durability, postgres: options.postgres }, count),
          async crashAndRestart() {
            await embedded.crashAndRestart();
            await run.admin.end().catch(() => undefined);
            await server.client.end().catch(() => undefined);
            run.admin = await connect(made.connectionString, 'reservebench-admin');
            server.client = await connect(server.url, 'reservebench-admin');
          },
        }
      : {}),
    async close({ keep }) {
      closing.closed = true;
      await run.admin.end().catch(() => undefined);
      try {
        if (!keep) {
          // Through a connection of its own: the one kept since the start may have been cut (a restart).
          const dropping = await connect(server.url, 'reservebench-cleanup');
          await dropOwnedDatabase(dropping, name).finally(() => dropping.end());
          if (stateFile) removeRunState(stateFile);
          return [];
        }
        if (stateFile)
          writeRunState(
            {
              pid: process.pid,
              startedAt: new Date().toISOString(),
              serverUrl: server.url,
              database: name,
              kept: true,
            },
            stateFile,
          );
        return embedded ? keptEmbeddedLines(embedded, name) : keptDatabaseLines(server.url, name);
      } finally {
        await server.client.end().catch(() => undefined);
        await embedded?.stop({ keepData: keep });
      }
    },
  };
  return run;
}
