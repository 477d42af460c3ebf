/**
 * A server (or role) that cannot take the connections the run needs is refused before any case, with one
 * line saying what to set — not 53300 errors halfway through the run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { runCli } from './run-cli.ts';

const serverUrl = inject('serverUrl');
const ROLE = 'reservebench_limited_role';

describe('the connection preflight', () => {
  afterAll(async () => {
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`DROP ROLE IF EXISTS ${ROLE}`);
    await admin.end();
  });

  it('refuses a run whose role may open fewer connections than contention needs (exit 2, one line)', async () => {
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`DROP ROLE IF EXISTS ${ROLE}`);
    await admin.query(`CREATE ROLE ${ROLE} LOGIN CREATEDB CONNECTION LIMIT 20 PASSWORD 'limited-pw'`);
    const before = await admin.query(
      "SELECT count(*)::int AS n FROM pg_database WHERE datname LIKE 'reservebench_%'",
    );
    const url = new URL(serverUrl);
    url.username = ROLE;
    url.password = 'limited-pw';
    const run = await runCli([
      'run',
      '--scenario',
      'contention',
      '--strategy',
      'hot-row',
      '--database-url',
      url.toString(),
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(
      /role reservebench_limited_role may open \d+ more connections \(CONNECTION LIMIT 20\) but the run needs 160/,
    );
    expect(run.stderr).not.toContain('limited-pw');
    // Its run database was dropped on the way out.
    const after = await admin.query(
      "SELECT count(*)::int AS n FROM pg_database WHERE datname LIKE 'reservebench_%'",
    );
    expect(after.rows[0]?.n).toBe(before.rows[0]?.n);
    // With few enough clients the same role may run.
    const reports = mkdtempSync(join(tmpdir(), 'reservebench-reports-'));
    const small = await runCli([
      'run',
      '--scenario',
      'contention',
      '--strategy',
      'hot-row',
      '--clients',
      '8',
      '--database-url',
      url.toString(),
      '--reports',
      reports,
    ]);
    rmSync(reports, { recursive: true, force: true });
    expect(small.code).toBe(0);
    await admin.end();
  });
});
