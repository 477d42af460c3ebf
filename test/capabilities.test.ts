/**
 * A capability taken away on the embedded server, for real: EXECUTE on pg_blocking_pids revoked from PUBLIC
 * in template1 (so in every run database made from it), which a hardened server can do too. A superuser
 * bypasses the privilege, so the test's own login role — not superuser, no pg_read_all_stats — is the one
 * refused; the other tests, all superuser, do not notice. The run's probe records the refusal in the
 * environment, the interleaving that needs the lock view is n/a with the server's answer, and the
 * scenario that does not need it still runs and passes.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CAPABILITIES } from '../strategies/contract.ts';
import { measured, runJson } from './run-cli.ts';

const serverUrl = inject('serverUrl');
const ROLE = 'reservebench_no_lock_view';
const REVOKED = 'FUNCTION pg_catalog.pg_blocking_pids(integer)';

/** The server's template1: what every run database is made from. */
async function onTemplate(sql: string): Promise<void> {
  const url = new URL(serverUrl);
  url.pathname = '/template1';
  const template = new pg.Client({ connectionString: url.toString() });
  await template.connect();
  try {
    await template.query(sql);
  } finally {
    await template.end();
  }
}

async function asAdmin(sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

describe('a server that refuses a capability', () => {
  beforeAll(async () => {
    await asAdmin(`DROP ROLE IF EXISTS ${ROLE}`);
    await asAdmin(`CREATE ROLE ${ROLE} LOGIN CREATEDB PASSWORD 'no-lock-view-pw'`);
    await onTemplate(`REVOKE EXECUTE ON ${REVOKED} FROM PUBLIC`);
  });

  afterAll(async () => {
    // PostgreSQL's own default, restored whatever the test did.
    await onTemplate(`GRANT EXECUTE ON ${REVOKED} TO PUBLIC`);
    await asAdmin(`DROP ROLE IF EXISTS ${ROLE}`);
  });

  it('records it, makes the interleaving n/a with the reason, and runs the rest', async () => {
    const url = new URL(serverUrl);
    url.username = ROLE;
    url.password = 'no-lock-view-pw';
    const { run, report } = await runJson(url.toString(), [
      '--scenario',
      'user-race,duplicate-key',
      '--strategy',
      'hot-row',
    ]);
    const { capabilities } = report.environment;
    expect(capabilities?.lockView).toMatch(/permission denied for function pg_blocking_pids/);
    for (const capability of CAPABILITIES.filter((c) => c !== 'lockView'))
      expect(capabilities?.[capability], capability).toBe(true);
    const race = report.cases.find((c) => c.id === 'user-race/hot-row');
    expect(race).toMatchObject({
      status: 'n/a',
      reason: expect.stringMatching(
        /^needs the lock view \(pg_blocking_pids.*\), which this server refused: permission denied for function pg_blocking_pids$/,
      ),
    });
    expect(measured(report.cases, 'duplicate-key/hot-row').status).toBe('pass');
    expect(run.code).toBe(0);
  });
});
