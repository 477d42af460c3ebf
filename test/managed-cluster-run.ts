/**
 * What a run on a real cluster the user runs must show, whichever manager drives it (test/patroni.test.ts,
 * test/pg-auto-failover.test.ts): the manager's failover and switchover hold for hot-row — nothing
 * acknowledged lost, nothing oversold, the member writable at the end the survivor, the time without a
 * writable primary measured — split brain is n/a (a manager fences its old primary), and the run leaves
 * no database of its own on the cluster.
 */
import { expect } from 'vitest';
import { connectMember } from '../harness/database/member-connection.ts';
import type { Report } from '../harness/report/report.ts';
import { type CliRun, measured, runJson } from './run-cli.ts';

/** Databases the suite made on the cluster and left there (none, after a run that did not --keep). */
export async function runDatabasesLeft(url: string): Promise<string[]> {
  // Asked of the primary: a standby may not have replayed the last DROP DATABASE yet.
  const primary = await connectMember({ connectionString: url }, { waitMs: 60_000 });
  try {
    const { rows } = await primary.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE datname LIKE 'reservebench_%'",
    );
    return rows.map((r) => r.datname);
  } finally {
    await primary.end();
  }
}

/** `run` with the manager's options (`--cluster patroni --cluster-api …`): failover, switchover, split brain. */
export async function runHandOvers(
  serverUrl: string,
  managerArgs: string[],
  clusterUrl: string,
): Promise<{ run: CliRun; report: Report }> {
  const done = await runJson(
    serverUrl,
    [...managerArgs, '--scenario', 'failover-sync,switchover,split-brain', '--strategy', 'hot-row'],
    { RESERVEBENCH_CLUSTER_URL: clusterUrl },
  );
  const { report } = done;
  for (const id of ['failover-sync/hot-row', 'switchover/hot-row']) {
    const held = measured(report.cases, id);
    expect(held.status, held.boundary).toBe('pass');
    expect(held.invariants).toMatchObject({ lostAcknowledged: 0, oversold: 0 });
    expect(held.copies?.[0]?.role).toBe('survivor');
    expect(held.observations?.unavailableMs).toBeGreaterThanOrEqual(0);
  }
  // A manager fences its old primary: split brain is not a fault a manager's backend causes.
  const split = report.cases.find((c) => c.id === 'split-brain/hot-row');
  expect(split?.status).toBe('n/a');
  expect(split?.boundary).toMatch(/cannot cause: restart-old-primary/);
  expect(await runDatabasesLeft(clusterUrl)).toEqual([]);
  return done;
}
