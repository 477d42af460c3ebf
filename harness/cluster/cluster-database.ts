/**
 * A run database on a cluster: made on the writable member (marked, with the run's durability, as on one
 * server) and replicated to the standbys, reached by every session of a case through the URL of all the
 * members, so each session finds the writable one itself. After a fault, `reconnect` moves the harness's
 * own connection to the member writable then. A cluster the user runs keeps it only for the run; an
 * embedded cluster goes with its members.
 */
import pg from 'pg';
import { type Capabilities, probeCapabilities } from '../database/capabilities.ts';
import { dropOwnedDatabase, OWNED_MARKER, type RunDatabase } from '../database/database.ts';
import type { Durability } from '../database/durability.ts';
import { databaseDurabilityStatement } from '../database/durability-statement.ts';
import { connectMember } from '../database/member-connection.ts';
import { clusterUrl, withDatabaseName } from '../database/member-urls.ts';
import type { DatabaseCluster } from './cluster.ts';

export interface ClusterRunDatabase extends RunDatabase {
  cluster: DatabaseCluster;
  /**
   * The harness's own connection (and the run database's URL) on the member writable now (after a
   * fault), or on `member` (one URL) when given: the copy the audit and the probe reach where two are
   * writable.
   */
  reconnect(member?: string): Promise<void>;
}

/** Schemas are numbered across the process (a node's memory is found by its case's schema name). */
let schemasMade = 0;

function clusterSchemaName(label: string): string {
  schemasMade += 1;
  return `k${String(schemasMade).padStart(3, '0')}_${label.toLowerCase().replace(/[^a-z0-9]+/g, '_')}`.slice(
    0,
    63,
  );
}

function stampName(): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '_').slice(0, 15);
  return `reservebench_${stamp}_${Math.random().toString(36).slice(2, 8)}`;
}

/** The harness's own session: on the writable member of `url`, or on the one member it names. */
const adminOn = (url: string) =>
  connectMember({ connectionString: url, application_name: 'reservebench-admin' }, { waitMs: 60_000 });

/** Creates the marked run database on the writable member; returns its name. */
async function createOnWritable(cluster: DatabaseCluster, durability: Durability): Promise<string> {
  const name = stampName();
  const server = await connectMember(
    {
      connectionString: clusterUrl(cluster.members.map((m) => m.url)),
      application_name: 'reservebench-admin',
    },
    { waitMs: 60_000 },
  );
  try {
    await server.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
    await server.query(
      `COMMENT ON DATABASE ${pg.escapeIdentifier(name)} IS ${pg.escapeLiteral(OWNED_MARKER)}`,
    );
    await server.query(databaseDurabilityStatement(name, durability));
  } finally {
    await server.end().catch(() => undefined);
  }
  return name;
}

export async function openClusterDatabase(
  cluster: DatabaseCluster,
  durability: Durability,
  probed: Capabilities | undefined,
): Promise<ClusterRunDatabase> {
  const name = await createOnWritable(cluster, durability);
  const connectionString = withDatabaseName(clusterUrl(cluster.members.map((m) => m.url)), name);
  const admin = await adminOn(connectionString);
  const { rows } = await admin.query<{ n: string }>("SELECT current_setting('server_version_num') AS n");
  const primary = await cluster.primary();
  const capabilities = probed ?? (await probeCapabilities(admin, withDatabaseName(primary.url, name)));
  const db: ClusterRunDatabase = {
    name,
    cluster,
    connectionString,
    admin,
    serverVersionNum: Number(rows[0]?.n),
    capabilities,
    async reconnect(member) {
      await db.admin.end().catch(() => undefined);
      // On one member (the final read's authority), what comes after the read — the audit, the
      // sell-what-remains probe — reaches that copy alone, not whichever member is writable first.
      db.connectionString = member ? withDatabaseName(member, name) : connectionString;
      db.admin = await adminOn(db.connectionString);
    },
    async createCaseSchema(label) {
      const schema = clusterSchemaName(label);
      await db.admin.query(`CREATE SCHEMA ${pg.escapeIdentifier(schema)}`);
      return schema;
    },
    async dropCaseSchema(schema) {
      await db.admin.query(`DROP SCHEMA ${pg.escapeIdentifier(schema)} CASCADE`);
    },
    async close({ keep }) {
      await db.admin.end().catch(() => undefined);
      if (!keep) {
        const dropping = await connectMember(
          { connectionString: clusterUrl(cluster.members.map((m) => m.url)) },
          { waitMs: 60_000 },
        );
        await dropOwnedDatabase(dropping, name).finally(() => dropping.end());
      }
      return [];
    },
  };
  return db;
}
