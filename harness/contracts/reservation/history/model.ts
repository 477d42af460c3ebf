/**
 * The sequential model of the reservation contract (docs/contract.md, "Business contract"): given the
 * state and one call, every answer the contract allows and what each one changes. Written to be read
 * against the contract line by line (each answer carries the rule of contract-rules.ts that gives it); the
 * checker (linearizability.ts) supplies the order, so which of two racing requests wins is not the model's
 * business.
 *
 * reserve(key, user, sku, ttl):
 *   - an unknown sku → BAD_REQUEST, or KEY_REUSED when the key is recorded (either refusal may come first);
 *   - a key, user or ttl the API refuses → BAD_REQUEST, nothing written (or the reserve goes on);
 *   - the key is recorded → REPLAY with its current status (same user and sku), else KEY_REUSED;
 *   - the user has an active (HELD or CONFIRMED) key on the sku → USER_LIMIT;
 *   - the sku is disabled or has no free unit → SOLD_OUT (when both refusals apply, either answer); a design
 *     declaring falseSoldOut may answer SOLD_OUT at any time;
 *   - otherwise HELD: the key is recorded HELD, expiring ttl after the reserve ran (database clock);
 *   - GAVE_UP (a retrying design ran out of attempts) is allowed at any time and writes nothing.
 * confirm / release(key): a HELD key moves to CONFIRMED / RELEASED (moved), anything else does not.
 * expire(): every HELD key whose expiry is before the call's database clock → EXPIRED; answers how many.
 * disable(sku): the first call disables it (moved); reserves of it answer SOLD_OUT from then on.
 * status(key): its status, or NOT_FOUND. remaining(sku): total − active.
 * backdate(keys): those reservations' expiry lies in the past.
 */

import type { ClockBounds } from '../../../history/clock-bounds.ts';
import type { ReservationRule } from './contract-rules.ts';
import type { Change, ContractState, KeyRecord } from './contract-state.ts';
import type { Answer, Call } from './reservation-operations.ts';

/** What a design may relax, by its own declaration (Strategy.falseSoldOut). */
export interface ModelOptions {
  /** SOLD_OUT is allowed at any time, writing nothing (a design that skips locked stock or shards it). */
  soldOutWhileStock?: boolean;
  /**
   * Leaves GAVE_UP out: it is always allowed, so an explanation of what the model answers instead of a
   * recorded answer would otherwise always be "GAVE_UP".
   */
  withoutGaveUp?: boolean;
}

export interface Result {
  answer: Answer;
  changes: Change[];
  rule: ReservationRule;
}

/** The request fields the API accepts (docs/http-api.md): anything else may be answered BAD_REQUEST. */
const FIELD = /^[A-Za-z0-9._:@-]{1,128}$/;
const MAX_TTL_MS = 24 * 3600 * 1000;

/** Most expiry splits tried for one expire call whose clock leaves some keys' expiry undecided. */
export const MAX_EXPIRY_SPLITS = 64;

/** The call as the checker sees it: what was asked, its database-clock bounds and the history op's id. */
export interface TimedCall {
  id: number;
  call: Call;
  db: ClockBounds;
}

// Module functions, not closures made per call: the search calls reserveResults for every operation it
// places, and each closure made there costs a function object (and its name) every time.
function refused(
  outcome: 'BAD_REQUEST' | 'USER_LIMIT' | 'SOLD_OUT' | 'KEY_REUSED',
  rule: ReservationRule,
): Result {
  return { answer: { outcome }, changes: [], rule };
}

function gaveUpToo(results: Result[], options: ModelOptions): Result[] {
  return options.withoutGaveUp
    ? results
    : [...results, { answer: { outcome: 'GAVE_UP' }, changes: [], rule: 'gave-up' }];
}

/** The answer for a recorded key: REPLAY with its status for the same user and sku, else KEY_REUSED. */
function recordedAnswer(recorded: KeyRecord, user: string, sku: string): Result {
  const same = recorded.user === user && recorded.sku === sku;
  return same
    ? { answer: { outcome: 'REPLAY', status: recorded.status }, changes: [], rule: 'reserve.recorded' }
    : refused('KEY_REUSED', 'reserve.recorded');
}

function reserveResults(
  state: ContractState,
  t: TimedCall & { call: Extract<Call, { op: 'reserve' }> },
  options: ModelOptions,
): Result[] {
  const { requestKey, user, sku, ttlMs } = t.call;
  const recorded = state.record(requestKey);
  if (!state.totals.has(sku)) {
    const noStock = [refused('BAD_REQUEST', 'reserve.refused')];
    if (recorded) noStock.push(refused('KEY_REUSED', 'reserve.recorded-no-stock'));
    return gaveUpToo(noStock, options);
  }
  const malformed =
    !FIELD.test(requestKey) ||
    !FIELD.test(user) ||
    !Number.isSafeInteger(ttlMs) ||
    ttlMs < 1 ||
    ttlMs > MAX_TTL_MS;
  const results: Result[] = malformed ? [refused('BAD_REQUEST', 'reserve.refused')] : [];
  if (recorded) {
    results.push(recordedAnswer(recorded, user, sku));
    return gaveUpToo(results, options);
  }
  const userLimit = state.hasActive(user, sku);
  const soldOut = state.isDisabled(sku) || state.free(sku) <= 0;
  if (userLimit) results.push(refused('USER_LIMIT', 'reserve.user-limit'));
  if (soldOut) results.push(refused('SOLD_OUT', 'reserve.sold-out'));
  else if (options.soldOutWhileStock) results.push(refused('SOLD_OUT', 'reserve.false-sold-out'));
  if (userLimit || soldOut) return gaveUpToo(results, options);
  const record: KeyRecord = {
    user,
    sku,
    status: 'HELD',
    expires: { from: t.db.from + ttlMs, to: t.db.to + ttlMs },
    origin: t.id,
  };
  results.push({
    answer: { outcome: 'HELD', status: 'HELD' },
    changes: [{ kind: 'key', key: requestKey, record }],
    rule: 'reserve.held',
  });
  return gaveUpToo(results, options);
}

function moveHeld(state: ContractState, key: string, to: 'CONFIRMED' | 'RELEASED'): Result[] {
  const rule = to === 'CONFIRMED' ? 'confirm' : 'release';
  const record = state.record(key);
  if (record?.status !== 'HELD') return [{ answer: { moved: false }, changes: [], rule }];
  return [
    { answer: { moved: true }, changes: [{ kind: 'key', key, record: { ...record, status: to } }], rule },
  ];
}

/** k-element subsets of `items`, at most `limit` of them. */
function subsets<T>(items: readonly T[], k: number, limit: number): T[][] {
  const out: T[][] = [];
  const pick = (from: number, chosen: T[]) => {
    if (out.length >= limit) return;
    if (chosen.length === k) {
      out.push([...chosen]);
      return;
    }
    for (let i = from; i <= items.length - (k - chosen.length); i++) pick(i + 1, [...chosen, items[i] as T]);
  };
  pick(0, []);
  return out;
}

/**
 * Expiry on the database clock: a key's expiry is before the call's clock for certain, after it for
 * certain, or — when the bounds overlap — either; every split of the undecided ones is a possible answer.
 * `wanted`: only the results answering this many units (the recorded answer), to keep the search small.
 */
function expireResults(state: ContractState, clock: ClockBounds, wanted: number | undefined): Result[] {
  const sure: [string, KeyRecord][] = [];
  const undecided: [string, KeyRecord][] = [];
  for (const [key, record] of state.held()) {
    if (record.expires === 'past' || record.expires.to < clock.from) sure.push([key, record]);
    else if (record.expires.from < clock.to) undecided.push([key, record]);
  }
  const sizes =
    wanted === undefined
      ? Array.from({ length: undecided.length + 1 }, (_, m) => m)
      : [wanted - sure.length].filter((m) => m >= 0 && m <= undecided.length);
  const results: Result[] = [];
  for (const m of sizes) {
    for (const extra of subsets(undecided, m, MAX_EXPIRY_SPLITS - results.length)) {
      const changes: Change[] = [...sure, ...extra].map(([key, record]) => ({
        kind: 'key',
        key,
        record: { ...record, status: 'EXPIRED' },
      }));
      results.push({ answer: { units: changes.length }, changes, rule: 'expire' });
    }
  }
  return results;
}

function backdateChanges(state: ContractState, keys: readonly string[]): Change[] {
  return keys.flatMap((key): Change[] => {
    const record = state.record(key);
    return record ? [{ kind: 'key', key, record: { ...record, expires: 'past' } }] : [];
  });
}

/**
 * Every answer the contract allows for `t` in `state`, each with its changes. `wanted` narrows the
 * results to one answer's (the checker passes the recorded one; diagnostics pass none).
 */
export function modelResults(
  state: ContractState,
  t: TimedCall,
  options: ModelOptions = {},
  wanted?: Answer,
): Result[] {
  const { call } = t;
  switch (call.op) {
    case 'reserve':
      return reserveResults(state, { ...t, call }, options);
    case 'confirm':
      return moveHeld(state, call.requestKey, 'CONFIRMED');
    case 'release':
      return moveHeld(state, call.requestKey, 'RELEASED');
    case 'expire':
      return expireResults(state, t.db, wanted && 'units' in wanted ? wanted.units : undefined);
    case 'disable': {
      const moved = state.totals.has(call.sku) && !state.isDisabled(call.sku);
      const changes: Change[] = moved ? [{ kind: 'disabled', sku: call.sku, value: true }] : [];
      return [{ answer: { moved }, changes, rule: 'disable' }];
    }
    case 'status': {
      const status = state.record(call.requestKey)?.status ?? 'NOT_FOUND';
      return [{ answer: { status }, changes: [], rule: 'status' }];
    }
    case 'remaining':
      return [{ answer: { remaining: state.free(call.sku) }, changes: [], rule: 'remaining' }];
    case 'backdate':
      return [
        { answer: { done: true }, changes: backdateChanges(state, call.requestKeys), rule: 'backdate' },
      ];
  }
}

/**
 * Whether a recorded answer is the model's answer: REPLAY's status must be the key's; a HELD answer's
 * status, where the design gives one, must be HELD; the other outcomes carry none.
 */
export function sameAnswer(model: Answer, recorded: Answer): boolean {
  const [a, b] = [model, recorded];
  if ('outcome' in a && 'outcome' in b) {
    if (a.outcome !== b.outcome) return false;
    if (a.outcome === 'REPLAY') return a.status === b.status;
    return a.outcome !== 'HELD' || b.status === undefined || b.status === 'HELD';
  }
  if ('moved' in a && 'moved' in b) return a.moved === b.moved;
  if ('units' in a && 'units' in b) return a.units === b.units;
  if ('status' in a && 'status' in b) return a.status === b.status;
  if ('remaining' in a && 'remaining' in b) return a.remaining === b.remaining;
  return 'done' in a && 'done' in b;
}
