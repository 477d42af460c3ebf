/**
 * The programs that fail over (`explore --cluster embedded`): one per operation of the design that
 * writes, each with the state it acts on set up first, then FAILOVER with that operation in flight —
 * the standby's link cut, the operation sent, the primary killed once it has answered or its commit waits
 * for the standby (one cut off is sent again with its key: drive-failover.ts) — and a sale after it on
 * the promoted member, which tells what that copy kept. One failover per
 * program, between two steps: every program needs a cluster of its own, so they are few and small.
 */
import type { Strategy } from '../../../../strategies/contract.ts';
import type { Program, ProgramOp } from './program.ts';

const LONG = 60_000;
const SHORT = 400;
/**
 * Past SHORT as the database clock tells it (the scope's WAIT after a short hold): the step waits until
 * clock_timestamp() on the hold's own session has passed WAIT plus 4 × the clock's slack from when it began
 * (clock-step.ts, distinguishableWait), after the hold answered. Never a sleep: load only makes it longer.
 */
const WAIT = 450;

const reserve = (key: string, user: string, ttlMs = LONG): ProgramOp => ({
  op: 'reserve',
  key,
  user,
  sku: 'sku-a',
  ttlMs,
  node: 1,
});

/** A program of `sessions` (the last one the failover's own) sent in `order`, over sku-a of `total`. */
function program(total: number, sessions: ProgramOp[][], order: number[]): Program {
  return {
    stock: [{ sku: 'sku-a', total }],
    nodes: 1,
    sessions: [...sessions, [{ op: 'failover' }]],
    priorities: [],
    changes: [],
    order,
  };
}

/** The failover's session is the last: `F` in an order. */
const F = -1;
const orderOf = (sessions: number, order: number[]) => order.map((s) => (s === F ? sessions : s));

export function failoverPrograms(strategy: Strategy): Program[] {
  const programs: Program[] = [];
  const add = (total: number, sessions: ProgramOp[][], order: number[]) =>
    programs.push(program(total, sessions, orderOf(sessions.length, order)));
  // A sale in flight after a first hold: the first must stay, the second is kept or retried, and a third
  // sale on the promoted member tells whether it counts both.
  add(2, [[reserve('k1', 'u1')], [reserve('k2', 'u2')], [reserve('k3', 'u3')]], [0, F, 1, 2]);
  const after = [reserve('k2', 'u2')];
  if (strategy.confirm)
    add(1, [[reserve('k1', 'u1'), { op: 'confirm', key: 'k1', node: 1 }], after], [0, F, 0, 1]);
  if (strategy.release)
    add(1, [[reserve('k1', 'u1'), { op: 'release', key: 'k1', node: 1 }], after], [0, F, 0, 1]);
  if (strategy.expire)
    add(
      1,
      [[reserve('k1', 'u1', SHORT), { op: 'wait', ms: WAIT }, { op: 'expire', node: 1 }], after],
      [0, 0, F, 0, 1],
    );
  if (strategy.disable)
    add(2, [[reserve('k1', 'u1'), { op: 'disable', sku: 'sku-a', node: 1 }], after], [0, F, 0, 1]);
  return programs;
}
