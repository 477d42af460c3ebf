/**
 * A shared gate's permits in PostgreSQL, the store the deployment already has: one row per permit in
 * `reservebench_gate.permit`, taken with `FOR UPDATE SKIP LOCKED` (a waiter never queues on a row another
 * is taking) and held under a lease on the database's own clock (`clock_timestamp()`: one clock for every
 * instance, so their clocks may disagree). A permit whose holder stopped renewing is free again once its
 * lease has passed. Statements commit without waiting for their WAL flush: a permit is worth nothing after
 * a crash of the server, which ends every request that held one. Not replicated in any useful sense
 * either: after a failover the new primary's rows say whatever the old one last shipped (a boundary
 * measured with the cluster backends, docs/scale.md).
 */
import pg from 'pg';
import { Errors } from '../errors.ts';
import { newHolder, type Permit, type PermitStore } from './permit-store.ts';

export const GATE_SCHEMA = 'reservebench_gate';
const MARKER = 'created by reservebench serve for its shared gates; safe to drop';
/** The connection name the harness leaves out when it counts a service's backends. */
const GATE_APPLICATION_NAME = 'reservebench-gate';

const CREATE = [
  `CREATE SCHEMA IF NOT EXISTS ${GATE_SCHEMA}`,
  `COMMENT ON SCHEMA ${GATE_SCHEMA} IS '${MARKER}'`,
  `CREATE TABLE IF NOT EXISTS ${GATE_SCHEMA}.permit (
     gate text NOT NULL,
     slot int NOT NULL,
     holder text,
     lease_until timestamptz,
     PRIMARY KEY (gate, slot))`,
];

const ACQUIRE = `
  UPDATE ${GATE_SCHEMA}.permit p
     SET holder = $2, lease_until = clock_timestamp() + make_interval(secs => $3 / 1000.0)
    FROM (SELECT slot FROM ${GATE_SCHEMA}.permit
           WHERE gate = $1 AND (holder IS NULL OR lease_until < clock_timestamp())
           ORDER BY slot LIMIT 1 FOR UPDATE SKIP LOCKED) free
   WHERE p.gate = $1 AND p.slot = free.slot
  RETURNING p.slot`;
const RELEASE = `UPDATE ${GATE_SCHEMA}.permit SET holder = NULL, lease_until = NULL WHERE gate = $1 AND holder = $2`;
const RENEW = `
  UPDATE ${GATE_SCHEMA}.permit SET lease_until = clock_timestamp() + make_interval(secs => $3 / 1000.0)
   WHERE gate = $1 AND holder = ANY($2::text[]) AND lease_until >= clock_timestamp()
  RETURNING holder`;

/** The gate's rows, made once by whichever instance comes first; another LIMIT than theirs is refused. */
async function preparePermits(pool: pg.Pool, gate: string, limit: number): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query("SELECT pg_advisory_xact_lock(hashtext('reservebench-gate'))");
    const { rows: found } = await client.query<{ comment: string | null }>(
      "SELECT obj_description(oid, 'pg_namespace') AS comment FROM pg_namespace WHERE nspname = $1",
      [GATE_SCHEMA],
    );
    if (found[0] && found[0].comment !== MARKER) {
      throw Errors.badInput(
        `schema ${GATE_SCHEMA} exists and was not made by reservebench: the postgres gate keeps its permits there`,
      );
    }
    for (const statement of CREATE) await client.query(statement);
    await client.query(
      `INSERT INTO ${GATE_SCHEMA}.permit (gate, slot)
       SELECT $1, s FROM generate_series(0, $2 - 1) s
        WHERE NOT EXISTS (SELECT 1 FROM ${GATE_SCHEMA}.permit WHERE gate = $1)`,
      [gate, limit],
    );
    const { rows } = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${GATE_SCHEMA}.permit WHERE gate = $1`,
      [gate],
    );
    await client.query('COMMIT');
    const permits = rows[0]?.n ?? 0;
    if (permits !== limit) {
      throw Errors.badInput(
        `the shared gate ${gate} has ${permits} permits, and this instance was given ${limit}: give every instance the same --admission LIMIT`,
      );
    }
  } catch (error: unknown) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

export class PostgresPermits implements PermitStore {
  readonly description: string;
  private readonly held = new Set<string>();
  private lost = 0;
  private readonly renewal: NodeJS.Timeout;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly gate: string,
    private readonly leaseMs: number,
  ) {
    this.description = `postgres (permits in ${GATE_SCHEMA}.permit, gate ${gate}, lease ${leaseMs} ms)`;
    // Renewed three times per lease, so one late renewal never loses a permit.
    this.renewal = setInterval(() => void this.renew(), Math.max(1, Math.floor(leaseMs / 3)));
    this.renewal.unref();
  }

  static async open(connectionString: string, gate: string, limit: number, leaseMs: number) {
    const pool = new pg.Pool({
      connectionString,
      max: 2,
      application_name: GATE_APPLICATION_NAME,
      options: '-c synchronous_commit=off',
      connectionTimeoutMillis: 2_000,
      query_timeout: 2_000,
    });
    pool.on('error', () => undefined);
    try {
      await preparePermits(pool, gate, limit);
    } catch (error: unknown) {
      await pool.end().catch(() => undefined);
      throw error;
    }
    return new PostgresPermits(pool, gate, leaseMs);
  }

  async tryAcquire(): Promise<Permit | undefined> {
    const holder = newHolder();
    const { rowCount } = await this.pool.query(ACQUIRE, [this.gate, holder, this.leaseMs]);
    if (!rowCount) return undefined;
    this.held.add(holder);
    return { holder };
  }

  async release(permit: Permit): Promise<void> {
    this.held.delete(permit.holder);
    await this.pool.query(RELEASE, [this.gate, permit.holder]);
  }

  private async renew(): Promise<void> {
    const holders = [...this.held];
    if (holders.length === 0) return;
    try {
      const { rows } = await this.pool.query<{ holder: string }>(RENEW, [this.gate, holders, this.leaseMs]);
      const kept = new Set(rows.map((r) => r.holder));
      for (const holder of holders) {
        // Released meanwhile, or gone: a permit still held that the renewal did not find was lost.
        if (!kept.has(holder) && this.held.delete(holder)) this.lost += 1;
      }
    } catch {
      // Unreachable now: the next renewal tries again, and the lease covers the gap until it runs out.
    }
  }

  leasesLost(): number {
    return this.lost;
  }

  async close(): Promise<void> {
    clearInterval(this.renewal);
    await this.pool.end().catch(() => undefined);
  }
}
