/**
 * cas-without-version — NEGATIVE CONTROL (expect: violate). optimistic-cas with the version check left
 * out: it reads `available, version`, decides in the application, and writes the value it computed
 * (`SET available = <read> - 1, version = version + 1 WHERE sku = $1`).
 *
 * What it gets wrong: the write lands whatever happened to the row since the read, so every client that
 * read 40 writes 39 (the isolation-matrix chapter's lost update: "version=2 proves there is a version column,
 * but without the predicate it protects nothing"). The version column is bumped and never compared.
 *
 * How the suite catches it every run: `contention` holds every client at `after-read` until all have
 * read, so all 150 read the same row and all 150 writes land: HELD 150, oversold 110.
 */
import type { Strategy } from '../contract.ts';
import optimisticCas, { reserveOptimistically, type TakeUnit } from '../optimistic-cas.ts';
import { attemptsKnob, MAX_ATTEMPTS } from '../support/retry-bound.ts';

const WRITE_READ_VALUE = 'UPDATE sku_stock SET available = $2, version = version + 1 WHERE sku = $1';

const writeWithoutCheck: TakeUnit = async (db, sku, read) =>
  (await db.query(WRITE_READ_VALUE, [sku, read.available - 1])).rowCount === 1;

/** The control with `attempts` as its retry bound: its variants keep its mistake. */
function casWithoutVersionWith(attempts: number): Strategy {
  return {
    ...optimisticCas,
    id: 'cas-without-version',
    title: 'CAS without the version check: absolute write of the value read',
    guarantee: 'none: the version is bumped but never compared (lost update)',
    expect: 'violate',
    caughtBy: { contention: ['oversold'] },
    notApplicable: 'negative control: contention is the case that must catch it',
    reserve: reserveOptimistically(writeWithoutCheck, attempts),
    ...attemptsKnob(casWithoutVersionWith),
  };
}

const casWithoutVersion = casWithoutVersionWith(MAX_ATTEMPTS);

export default casWithoutVersion;
