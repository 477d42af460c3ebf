/**
 * give-up-releases-claim — NEGATIVE CONTROL (expect: violate). optimistic-cas whose give-up path, instead
 * of rolling its claim back, marks the claimed row RELEASED and commits it, as a client that abandons its
 * hold would: "the request is over, record it as released".
 *
 * What it gets wrong: GAVE_UP must write nothing (docs/contract.md), so that the client's retry with the
 * same key (the service answers GAVE_UP with 503 and Retry-After) gets a unit. Here the retry finds the key
 * recorded and is answered REPLAY RELEASED: the request is lost for good. No unit is taken, nothing is
 * active, so every count holds; only a GAVE_UP answer whose key does not read NOT_FOUND shows it, and no
 * scenario but the one that drives the give-up path ever gets there (optimistic-cas gives up after 300
 * lost rounds).
 *
 * How the suite catches it every run: `give-up` runs it with 2 attempts and makes both lose; its key then
 * reads RELEASED (`gaveUpWrote`; `linearizable` fires beside it: the model says NOT_FOUND).
 */
import type { Strategy } from '../contract.ts';
import optimisticCas, { compareAndSet, type GiveUp, reserveOptimistically } from '../optimistic-cas.ts';
import { attemptsKnob, MAX_ATTEMPTS } from '../support/retry-bound.ts';

const SQL = {
  releaseClaim: "UPDATE reservation SET status = 'RELEASED', updated_at = now() WHERE request_key = $1",
} as const;

const releaseClaim: GiveUp = (db, request) => db.query(SQL.releaseClaim, [request.requestKey]);

/** The control with `attempts` as its retry bound: its variants keep its mistake. */
function giveUpReleasesClaimWith(attempts: number): Strategy {
  return {
    ...optimisticCas,
    id: 'give-up-releases-claim',
    title: 'Optimistic CAS whose give-up marks its claim RELEASED instead of rolling it back',
    guarantee: 'none: a reserve that gives up leaves its key recorded as RELEASED (GAVE_UP wrote)',
    expect: 'violate',
    caughtBy: { 'give-up': ['gaveUpWrote'] },
    notApplicable: 'negative control: give-up is the case that must catch it',
    reserve: reserveOptimistically(compareAndSet, attempts, releaseClaim),
    ...attemptsKnob(giveUpReleasesClaimWith),
  };
}

const giveUpReleasesClaim = giveUpReleasesClaimWith(MAX_ATTEMPTS);

export default giveUpReleasesClaim;
