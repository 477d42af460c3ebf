/**
 * What the gate-failover case runs on: a replicated cluster (the embedded one — a primary and one
 * synchronous standby, harness/cluster/embedded-cluster.ts — or one a manager runs, such as Patroni), a
 * run database of its own on it, and N in-process instances of the reservation service behind one shared
 * PostgreSQL gate. The instances reach the cluster through
 * one fixed address, as they would behind a load balancer or a virtual IP that follows the primary
 * (HAProxy checking Patroni's /primary): the suite's own loopback proxy (link-proxy.ts), pointed at the
 * member taking writes and moved to the promoted one after a failover. Moving it is the only thing the
 * harness does for the service; the failover itself is PostgreSQL's (immediate shutdown, pg_promote()).
 */
import pg from 'pg';
import type { Strategy } from '../../../../strategies/contract.ts';
import type { DatabaseCluster } from '../../../cluster/cluster.ts';
import { type ClusterRunDatabase, openClusterDatabase } from '../../../cluster/cluster-database.ts';
import { startEmbeddedCluster } from '../../../cluster/embedded-cluster.ts';
import { type LinkProxy, startLinkProxy } from '../../../cluster/link-proxy.ts';
import type { PostgresMajor } from '../../../database/postgres-versions.ts';
import { nodeIdentity } from '../../../driver/node-identity.ts';
import type { GateChoice } from '../../../gate/gate.ts';
import { type ReservationService, startReservationService } from '../http/reservation-service.ts';

export const GATE_FAILOVER_SKU = 'sku-gate-failover';

export interface GateFailoverSettings {
  instances: number;
  /** The shared gate's LIMIT, for all instances together. */
  limit: number;
  leaseMs: number;
  /** How long a request waits for a permit before its 503 (--wait-ms). */
  waitMs: number;
  stock: number;
}

export interface GateFailoverBed {
  cluster: DatabaseCluster;
  db: ClusterRunDatabase;
  strategy: Strategy;
  schema: string;
  /** The name the shared gate's writes lane has in reservebench_gate.permit. */
  gateName: string;
  services: ReservationService[];
  /** The one address the instances and the harness use: the member taking writes, through the proxy. */
  endpointUrl: string;
  /** Points the address at the member writable now (after a failover); connections made before stay. */
  followPrimary(): Promise<void>;
  /** A new session of the harness's own through the address, on the case's schema. */
  connect(name: string): Promise<pg.Client>;
  close(): Promise<void>;
}

const portOf = (url: string) => Number(new URL(url).port);

/** The URL of the run database through the proxy on `port`. */
function throughProxy(db: ClusterRunDatabase, memberUrl: string, port: number): string {
  const url = new URL(memberUrl);
  url.port = String(port);
  url.pathname = `/${db.name}`;
  return url.toString();
}

async function startServices(
  bed: Pick<GateFailoverBed, 'strategy' | 'schema' | 'endpointUrl'>,
  settings: GateFailoverSettings,
): Promise<ReservationService[]> {
  const gate: GateChoice = { kind: 'postgres', failureMode: 'closed', leaseMs: settings.leaseMs };
  const services: ReservationService[] = [];
  for (let i = 0; i < settings.instances; i++) {
    services.push(
      await startReservationService({
        strategy: bed.strategy,
        connectionString: bed.endpointUrl,
        schema: bed.schema,
        admission: { limit: settings.limit, maxWaiting: 2 * settings.limit, waitMs: settings.waitMs },
        gate,
        workMs: 0,
        node: nodeIdentity(bed.schema, i, settings.instances),
      }),
    );
  }
  return services;
}

/** A new embedded cluster for one case: a primary and one synchronous standby, its link a proxy to cut. */
export function embeddedGateCluster(major: PostgresMajor): Promise<DatabaseCluster> {
  return startEmbeddedCluster({ replication: 'sync', standbys: 1, faults: ['failover', 'partition'] }, major);
}

/**
 * Its database, the proxy, the tables and the instances on `cluster`; `close` removes them and, when
 * `owned`, the cluster too. On a failure nothing of them is left.
 */
export async function openGateFailoverBed(
  strategy: Strategy,
  settings: GateFailoverSettings,
  cluster: DatabaseCluster,
  owned: boolean,
): Promise<GateFailoverBed> {
  const opened: { db?: ClusterRunDatabase; proxy?: LinkProxy; services: ReservationService[] } = {
    services: [],
  };
  const close = async () => {
    await Promise.all(opened.services.map((s) => s.close()));
    await opened.proxy?.close();
    if (owned) {
      // The run database goes with the members' directories.
      await opened.db?.admin.end().catch(() => undefined);
      await cluster.close({ keep: false });
    } else await opened.db?.close({ keep: false });
  };
  try {
    const db = await openClusterDatabase(cluster, 'on', undefined);
    opened.db = db;
    const primary = await cluster.primary();
    // Read by the proxy at each new connection: moving the primary moves where new sessions go.
    const target = { host: '127.0.0.1', port: portOf(primary.url) };
    const proxy = await startLinkProxy(target);
    opened.proxy = proxy;
    const schema = await db.createCaseSchema('gate_failover');
    const endpointUrl = throughProxy(db, primary.url, proxy.port);
    const connect = async (name: string) => {
      const client = new pg.Client({ connectionString: endpointUrl, application_name: name });
      client.on('error', () => undefined);
      await client.connect();
      await client.query(`SET search_path TO ${pg.escapeIdentifier(schema)}`);
      return client;
    };
    const admin = await connect('reservebench-admin');
    await strategy
      .setup(admin, [{ sku: GATE_FAILOVER_SKU, total: settings.stock }])
      .finally(() => admin.end());
    opened.services = await startServices({ strategy, schema, endpointUrl }, settings);
    return {
      cluster,
      db,
      strategy,
      schema,
      gateName: `${schema}/reservations`,
      services: opened.services,
      endpointUrl,
      async followPrimary() {
        target.port = portOf((await cluster.primary()).url);
      },
      connect,
      close,
    };
  } catch (error: unknown) {
    await close();
    throw error;
  }
}
