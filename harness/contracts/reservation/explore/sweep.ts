/**
 * The sweep: the programs every exploration starts with, before the random ones. Each puts one operation
 * against another on the same row — raced at every pause point the design declares for the first, or sent
 * again after it took effect — with the state that operation acts on set up first: two sales of one unit
 * (other users, the same user, the same key), a release or an expire run twice beside a hold that stays, an
 * expire killed at its pause point and run again, a sale after a unit came back (released, expired), an
 * expire before a short hold is due, a lifecycle call on a hold whose TTL has run out, a sale after its
 * node restarted, a disable racing a sale.
 * Small-scope and pairwise, as in Jackson's small scope hypothesis: most bugs of this kind need two
 * operations and one unit. What is swept follows only the operations and pause points the design declares
 * (never its id), so every design is judged the same way, and a random program need not be lucky to find a
 * race at a point the design names.
 */
import type { PausePoint, PausingOperation, Strategy } from '../../../../strategies/contract.ts';
import type { Pause, Program, ProgramOp } from './program.ts';

const SKU = 'sku-a';
const LONG = 60_000;
const SHORT = 150;
/** Longer than SHORT on the database clock: the short hold has run out after it. */
const PAST_SHORT = 200;
/** Short, but longer than the next step takes: an expire right after it finds the hold not yet due. */
const NOT_YET_DUE = 400;

const hold = (key: string, user = 'u1', ttlMs = LONG): ProgramOp => ({
  op: 'reserve',
  key,
  user,
  sku: SKU,
  ttlMs,
  node: 1,
});
const kept = hold('k9', 'u9');
const remaining: ProgramOp = { op: 'remaining', sku: SKU };
const expiredHold = [hold('k1', 'u1', SHORT), { op: 'wait', ms: PAST_SHORT } as const];

/** One session after another (the first has the highest priority), on one node. */
function program(stock: number, sessions: ProgramOp[][]): Program {
  return {
    stock: [{ sku: SKU, total: stock }],
    nodes: 1,
    sessions,
    priorities: sessions.map((_, s) => sessions.length - s),
    changes: [],
  };
}

function pausedAt(op: ProgramOp, at: PausePoint, resume: Pause['resume']): ProgramOp {
  return { ...op, pause: { at, resume } } as ProgramOp;
}

const pointsOf = (strategy: Strategy, operation: PausingOperation) => strategy.pausePoints[operation] ?? [];

/** Two sales of one unit (two of two for one user), the first stopped at each reserve point. */
function reserveRaces(strategy: Strategy): Program[] {
  const rivals = [
    { stock: 1, rival: hold('k2', 'u2') },
    { stock: 2, rival: hold('k2', 'u1') },
    { stock: 1, rival: hold('k1', 'u1') },
  ];
  return pointsOf(strategy, 'reserve').flatMap((at) =>
    rivals.map(({ stock, rival }) => program(stock, [[pausedAt(hold('k1'), at, 'commit')], [rival]])),
  );
}

/** A unit given back twice beside a hold that stays: sent again, and raced at each of its points. */
function givenBackTwice(strategy: Strategy): Program[] {
  const programs: Program[] = [];
  if (strategy.release) {
    const release: ProgramOp = { op: 'release', key: 'k1', node: 1 };
    programs.push(program(2, [[kept, hold('k1'), release, release, remaining]]));
    for (const at of pointsOf(strategy, 'release'))
      programs.push(
        program(2, [
          [kept, hold('k1'), pausedAt(release, at, 'commit')],
          [release, remaining],
        ]),
      );
  }
  if (strategy.expire) {
    const expire: ProgramOp = { op: 'expire', node: 1 };
    programs.push(program(2, [[kept, ...expiredHold, expire, expire, remaining]]));
    for (const at of pointsOf(strategy, 'expire')) {
      for (const resume of ['commit', 'kill'] as const)
        programs.push(
          program(2, [
            [kept, ...expiredHold, pausedAt(expire, at, resume)],
            [expire, remaining],
          ]),
        );
    }
  }
  return programs;
}

/** A sale after a unit came back, a lifecycle call on a hold past its TTL, a sale after a restart. */
function afterAChange(strategy: Strategy): Program[] {
  const sellAgain = hold('k2', 'u2');
  const programs = [program(1, [[hold('k1'), { op: 'restart', node: 1 }, sellAgain, remaining]])];
  if (strategy.release)
    programs.push(program(1, [[hold('k1'), { op: 'release', key: 'k1', node: 1 }, sellAgain]]));
  if (strategy.expire) {
    programs.push(program(1, [[...expiredHold, { op: 'expire', node: 1 }, sellAgain, remaining]]));
    // Not yet due on the database clock: the expire must leave it held.
    programs.push(
      program(1, [[hold('k1', 'u1', NOT_YET_DUE), { op: 'expire', node: 1 }, sellAgain, remaining]]),
    );
    for (const op of ['confirm', 'release'] as const) {
      if (strategy[op])
        programs.push(
          program(1, [[...expiredHold, { op, key: 'k1', node: 1 }, { op: 'expire', node: 1 }, sellAgain]]),
        );
    }
  }
  return programs;
}

/** A disable racing a sale stopped at each reserve point. */
function disableRaces(strategy: Strategy): Program[] {
  if (!strategy.disable) return [];
  const disable: ProgramOp = { op: 'disable', sku: SKU, node: 1 };
  return pointsOf(strategy, 'reserve').map((at) =>
    program(1, [[pausedAt(hold('k1'), at, 'commit')], [disable, hold('k2', 'u2')]]),
  );
}

export function sweepPrograms(strategy: Strategy): Program[] {
  return [
    ...reserveRaces(strategy),
    ...givenBackTwice(strategy),
    ...afterAChange(strategy),
    ...disableRaces(strategy),
  ];
}
