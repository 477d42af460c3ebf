/**
 * What this server lets the run do, probed once per run database on connect: a PostgreSQL-protocol engine
 * (CockroachDB, YugabyteDB, a transaction pooler) or a locked-down role may refuse what a design or
 * scenario relies on, and a case that needs a refused capability is n/a with the server's answer instead
 * of failing halfway. Each probe is a cheap statement in a transaction that is rolled back, on a schema
 * made inside it, so nothing is left behind.
 */
import pg from 'pg';
import { CAPABILITIES, type Capability } from '../../strategies/contract.ts';
import { oneLine } from '../errors.ts';

/** `true` where the server did it; otherwise what it answered (its error, or what it did instead). */
export type Capabilities = Record<Capability, true | string>;

/** What each capability means, for a reason a reader can act on. */
export const CAPABILITY_TEXT: Record<Capability, string> = {
  skipLocked: 'FOR UPDATE SKIP LOCKED',
  nowait: 'FOR UPDATE NOWAIT',
  advisoryLocks: 'advisory locks (pg_try_advisory_xact_lock)',
  lockView: "the lock view (pg_blocking_pids, other sessions' locks in pg_locks)",
  readCommitted: 'READ COMMITTED',
  repeatableRead: 'REPEATABLE READ',
  serializable: 'SERIALIZABLE',
  returningOld: 'UPDATE … RETURNING old',
  synchronousCommit: 'SET synchronous_commit',
};

const PROBE_TABLE = 'reservebench_probe.slot';

/** One statement per capability probed on the probe table, inside a savepoint of its own. */
const STATEMENTS: Partial<Record<Capability, string>> = {
  skipLocked: `SELECT id FROM ${PROBE_TABLE} FOR UPDATE SKIP LOCKED`,
  nowait: `SELECT id FROM ${PROBE_TABLE} FOR UPDATE NOWAIT`,
  advisoryLocks: 'SELECT pg_try_advisory_xact_lock(0)',
  returningOld: `UPDATE ${PROBE_TABLE} SET id = id RETURNING old.id`,
  synchronousCommit: "SET LOCAL synchronous_commit = 'off'",
};

const ISOLATION: Partial<Record<Capability, string>> = {
  readCommitted: 'read committed',
  repeatableRead: 'repeatable read',
  serializable: 'serializable',
};

/** The statement probes, each in a savepoint of one rolled-back transaction. */
async function probeStatements(db: pg.ClientBase): Promise<Partial<Capabilities>> {
  const found: Partial<Capabilities> = {};
  await db.query('BEGIN');
  try {
    try {
      await db.query('CREATE SCHEMA reservebench_probe');
      await db.query(`CREATE TABLE ${PROBE_TABLE} (id int PRIMARY KEY)`);
      await db.query(`INSERT INTO ${PROBE_TABLE} VALUES (1)`);
    } catch (error: unknown) {
      const reason = `the probe table could not be made: ${oneLine(error)}`;
      return Object.fromEntries(Object.keys(STATEMENTS).map((c) => [c, reason]));
    }
    for (const [capability, sql] of Object.entries(STATEMENTS)) {
      await db.query('SAVEPOINT probe');
      try {
        await db.query(sql);
        found[capability as Capability] = true;
        await db.query('RELEASE SAVEPOINT probe');
      } catch (error: unknown) {
        found[capability as Capability] = oneLine(error);
        await db.query('ROLLBACK TO SAVEPOINT probe');
      }
    }
  } finally {
    await db.query('ROLLBACK');
  }
  return found;
}

/** Each isolation level: taken, and run at that level (an engine may upgrade one silently). */
async function probeIsolation(db: pg.ClientBase): Promise<Partial<Capabilities>> {
  const found: Partial<Capabilities> = {};
  for (const [capability, level] of Object.entries(ISOLATION)) {
    try {
      await db.query(`BEGIN ISOLATION LEVEL ${level}`);
      const { rows } = await db.query<{ level: string }>('SELECT current_setting($1) AS level', [
        'transaction_isolation',
      ]);
      const ran = rows[0]?.level ?? 'unknown';
      found[capability as Capability] = ran === level ? true : `asked for ${level}, the server ran ${ran}`;
    } catch (error: unknown) {
      found[capability as Capability] = oneLine(error);
    } finally {
      await db.query('ROLLBACK').catch(() => undefined);
    }
  }
  return found;
}

/**
 * What the interleaving engine judges waits by: `pg_blocking_pids`, and another session's locks in
 * `pg_locks` (every open transaction holds its own virtualxid lock, so one is there to see).
 */
async function probeLockView(db: pg.ClientBase, connectionString: string): Promise<true | string> {
  const other = new pg.Client({ connectionString, application_name: 'reservebench-probe' });
  // Idle in its transaction while the probe reads: a server that ends it then must not crash the run.
  other.on('error', () => undefined);
  try {
    await other.connect();
    await other.query('BEGIN');
    const { rows } = await other.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    await db.query('SELECT pg_blocking_pids(pg_backend_pid())');
    const seen = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_locks WHERE pid = $1', [
      rows[0]?.pid,
    ]);
    return (seen.rows[0]?.n ?? 0) > 0 ? true : "pg_locks shows no lock of another session's open transaction";
  } catch (error: unknown) {
    return oneLine(error);
  } finally {
    await other.end().catch(() => undefined);
  }
}

export async function probeCapabilities(db: pg.ClientBase, connectionString: string): Promise<Capabilities> {
  const found: Partial<Capabilities> = {
    ...(await probeStatements(db)),
    ...(await probeIsolation(db)),
    lockView: await probeLockView(db, connectionString),
  };
  return Object.fromEntries(CAPABILITIES.map((c) => [c, found[c] ?? 'not probed'])) as Capabilities;
}
