/**
 * async-commit — NEGATIVE CONTROL (expect: violate). hot-row, but each reservation commits with
 * `synchronous_commit = off` set in its own transaction: HELD is answered once COMMIT returns, before the
 * commit's WAL is on disk.
 *
 * What it gets wrong: the acknowledgement outruns durability. Nothing shows it while the database stays
 * up — every invariant holds — but a crash loses every hold whose WAL was still in memory, and those
 * clients were told HELD.
 *
 * How the suite catches it every run: only a database fault can. `db-crash` crashes the server (SIGQUIT)
 * once 40 holds have committed, with the WAL writer slowed to 10 s so that nothing flushes on its own; the
 * final read after the restart finds none of them (lostAcknowledged ≥ 40).
 */
import type { Strategy } from '../contract.ts';
import hotRow from '../hot-row.ts';
import { reserveCommittingAt } from '../support/commit-level-reserve.ts';

const asyncCommit: Strategy = {
  ...hotRow,
  id: 'async-commit',
  title: 'hot-row acknowledging before its commit is durable',
  guarantee: 'none: HELD is answered before the WAL is flushed (synchronous_commit = off per transaction)',
  expect: 'violate',
  caughtBy: { 'db-crash': ['lostAcknowledged'] },
  notApplicable: 'negative control: db-crash is the case that must catch it',
  reserve: reserveCommittingAt('off'),
};

export default asyncCommit;
