/**
 * The commit-ack proxy with a plain client: which answer it loses. Armed with "is the reservation
 * committed?", it passes on every answer that leaves none committed (an autocommit lookup, an autocommit
 * write of something else, a read-only transaction, a rolled-back one, the statements inside an open one)
 * and cuts the first answer after which the reservation is committed, whether that answer is a COMMIT's or
 * an autocommit INSERT's (whose implicit transaction ends with it).
 */
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { type CommitAckProxy, startCommitAckProxy } from '../harness/crash/commit-ack-proxy.ts';
import { SQLSTATE, sqlstateOf } from '../strategies/support/sqlstate.ts';
import { useRunDatabase } from './db-fixture.ts';

const { db, admin } = useRunDatabase();

beforeAll(async () => {
  await admin().query(`CREATE TABLE ack_reservation (request_key text PRIMARY KEY);
                       CREATE TABLE ack_node (node text PRIMARY KEY)`);
});

const rowsOf = async (sql: string, values: unknown[]) => (await admin().query(sql, values)).rowCount;
const committed = (key: string) => async () =>
  (await rowsOf('SELECT 1 FROM ack_reservation WHERE request_key = $1', [key])) === 1;

/** A client connected through a fresh proxy; both are closed after `work`. */
async function throughProxy(work: (client: pg.Client, proxy: CommitAckProxy) => Promise<void>) {
  const direct = new URL(db().connectionString);
  const proxy = await startCommitAckProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
  const viaProxy = new URL(db().connectionString);
  viaProxy.hostname = '127.0.0.1';
  viaProxy.port = String(proxy.port);
  const client = new pg.Client({ connectionString: viaProxy.toString() });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await work(client, proxy);
  } finally {
    await client.end().catch(() => undefined);
    await proxy.close();
  }
}

/** 'answered', or the SQLSTATE the client's query failed with. */
const answerOf = (query: Promise<unknown>) =>
  query.then(
    () => 'answered',
    (error: unknown) => sqlstateOf(error),
  );

describe('the commit-ack proxy, armed for one reservation', () => {
  it('passes on a lookup, another write, a read-only and a rolled-back transaction; cuts the COMMIT', async () => {
    await throughProxy(async (client, proxy) => {
      proxy.loseCommitAnswer(committed('k1'));
      await client.query('SELECT count(*) FROM ack_reservation');
      await client.query('INSERT INTO ack_node (node) VALUES ($1)', ['node-0']);
      await client.query('BEGIN READ ONLY');
      await client.query('SELECT count(*) FROM ack_node');
      await client.query('COMMIT');
      await client.query('BEGIN');
      await client.query('INSERT INTO ack_reservation (request_key) VALUES ($1)', ['k1']);
      await client.query('ROLLBACK');
      expect(await committed('k1')()).toBe(false);
      await client.query('BEGIN');
      await client.query('INSERT INTO ack_reservation (request_key) VALUES ($1)', ['k1']);
      expect(await answerOf(client.query('COMMIT'))).toBe(SQLSTATE.connectionFailure);
    });
    expect(await committed('k1')()).toBe(true);
    expect(await rowsOf('SELECT 1 FROM ack_node WHERE node = $1', ['node-0'])).toBe(1);
  });

  it('cuts an autocommit INSERT of the reservation once it has committed', async () => {
    await throughProxy(async (client, proxy) => {
      proxy.loseCommitAnswer(committed('k2'));
      const insert = client.query('INSERT INTO ack_reservation (request_key) VALUES ($1)', ['k2']);
      expect(await answerOf(insert)).toBe(SQLSTATE.connectionFailure);
    });
    expect(await committed('k2')()).toBe(true);
  });

  it('passes everything on until it is armed', async () => {
    await throughProxy(async (client) => {
      await client.query('INSERT INTO ack_reservation (request_key) VALUES ($1)', ['k3']);
      expect(await answerOf(client.query('SELECT 1'))).toBe('answered');
    });
    expect(await committed('k3')()).toBe(true);
  });
});
