/**
 * The reservation contract's exhaustive scope as the explorer runs it (exhaustive.ts): every template the
 * growth makes (growth.ts), shortest first, under each naming (names.ts), and once, for a design that
 * expires, a crowd of CROWD_SIZE short holds that one expire must take at once. Programs run side by side
 * on one table set, each under its own tag, taking turns round by round (batchOf): the i-th operation of
 * every program, then the (i+1)-th; the WAITs of the programs of one batch fall on the same rounds
 * (groupOf) and are one WAIT. Nothing of one program can touch another's keys, users or skus, and what
 * touches every sku (an expire, a restart) takes its turn like any operation, in an order the history sees
 * whole: the checker judges the batch against the model as one history.
 */
import type { Strategy } from '../../../../strategies/contract.ts';
import type { ScopeLanguage } from '../../../contract/contract-explore.ts';
import { scopePrograms } from '../../../explore/scope.ts';
import { reservationGrowth } from './growth.ts';
import { describeNaming, type Naming, namingsFor, PLAIN } from './names.ts';
import { type Program, type ProgramOp, specWord, stepsOf } from './program.ts';
import {
  CROWD_SIZE,
  NO_STOCK,
  relatedCounts,
  type SymbolicOp,
  type Template,
  waitPositions,
} from './template.ts';

/** TTL classes and the WAIT that lets a short one run out on the database clock. */
export const SCOPE_TTL_MS = { short: 400, long: 60_000 } as const;
export const SCOPE_WAIT_MS = 450;
/** Connections a batch's programs share (program i on connection i mod this), side by side in a round. */
export const SCOPE_SESSIONS = 8;

export interface ScopeProgram {
  template: Template;
  naming: Naming;
}

const CROWD: Template = {
  ops: [{ op: 'crowd', sku: 0 }, { op: 'wait' }, { op: 'expire' }],
  stock: [CROWD_SIZE],
};

/** Operations of the contract a template sends: a WAIT is time passing, a crowd counts as one. */
export const scopeLength = (t: Template) => t.ops.filter((op) => op.op !== 'wait').length;

function* programsUpTo(strategy: Strategy, maxLength: number): Generator<ScopeProgram> {
  let crowded = !strategy.expire;
  for (const template of scopePrograms(reservationGrowth(strategy), maxLength)) {
    if (!crowded && scopeLength(template) >= 2) {
      crowded = true;
      yield { template: CROWD, naming: PLAIN };
    }
    for (const naming of namingsFor(relatedCounts(template))) yield { template, naming };
  }
}

interface Names {
  key(i: number): string;
  sku(i: number): string;
  user(i: number): string;
  tag: string;
}

/** One operation of a template with its names: a crowd is CROWD_SIZE reserves. */
function renderedOp(op: SymbolicOp, names: Names): ProgramOp[] {
  const { key, sku, user, tag } = names;
  switch (op.op) {
    case 'reserve': {
      const ttlMs = SCOPE_TTL_MS[op.ttl];
      return [{ op: 'reserve', key: key(op.key), user: user(op.user), sku: sku(op.sku), ttlMs, node: 1 }];
    }
    case 'crowd':
      return Array.from({ length: CROWD_SIZE }, (_, i) => ({
        op: 'reserve' as const,
        key: `${tag}crowd-${i}`,
        user: `${tag}cu${i}`,
        sku: sku(op.sku),
        ttlMs: SCOPE_TTL_MS.short,
        node: 1,
      }));
    case 'confirm':
    case 'release':
      return [{ op: op.op, key: key(op.key), node: 1 }];
    case 'status':
    case 'backdate':
      return [{ op: op.op, key: key(op.key) }];
    case 'disable':
      return [{ op: 'disable', sku: sku(op.sku), node: 1 }];
    case 'remaining':
      return [{ op: 'remaining', sku: sku(op.sku) }];
    case 'expire':
    case 'restart':
      return [{ op: op.op, node: 1 }];
    case 'wait':
      return [{ op: 'wait', ms: SCOPE_WAIT_MS }];
  }
}

/** The program with its names, each starting with `tag`: its stock lines and its operations. */
function rendered(p: ScopeProgram, tag: string): { stock: Program['stock']; ops: ProgramOp[] } {
  const { naming, template } = p;
  const names: Names = {
    key: (i) => naming.key.name(i, tag),
    sku: (i) => naming.sku.name(i, tag),
    user: (i) => naming.user.name(i, tag),
    tag,
  };
  const ops = template.ops.flatMap((op) => renderedOp(op, names));
  const stock = template.stock.flatMap((total, i) =>
    total === NO_STOCK ? [] : [{ sku: names.sku(i), total }],
  );
  return { stock, ops };
}

/**
 * An expire answers one sum over every sku, so the checker judges every program of its batch as one part
 * of the history: those batches run one operation at a time (one session), so that real time orders the
 * whole part and a history that admits no order is refuted, and shrunk to its witness, in steps linear in
 * its length, not exponential in the operations that overlap. They are small, so that a round (one
 * operation of each program) stays well within a short TTL: an expire right after a short hold finds it
 * not yet due, as it would alone.
 */
const expires = (p: ScopeProgram) => p.template.ops.some((op) => op.op === 'expire');
const EXPIRE_BATCH = 25;

/** Programs side by side: round by round, each program's next operation, one WAIT for all. */
function batchOf(programs: readonly ScopeProgram[]): Program {
  const width = String(Math.max(0, programs.length - 1)).length;
  const all = programs.map((p, i) => rendered(p, String(i).padStart(width, '0')));
  const count = programs.some(expires) ? 1 : Math.min(SCOPE_SESSIONS, all.length);
  const sessions: ProgramOp[][] = Array.from({ length: count }, () => []);
  const order: number[] = [];
  const starts: number[] = [];
  const rounds = Math.max(...all.map((p) => p.ops.length));
  for (let round = 0; round < rounds; round++) {
    starts.push(order.length);
    all.forEach((p, i) => {
      const op = p.ops[round];
      // The programs of a batch wait on the same rounds: the first one's WAIT is everyone's.
      if (!op || (op.op === 'wait' && i > 0)) return;
      const session = op.op === 'wait' ? 0 : i % sessions.length;
      sessions[session]?.push(op);
      order.push(session);
    });
  }
  return {
    stock: all.flatMap((p) => p.stock),
    nodes: 1,
    sessions,
    priorities: sessions.map(() => 0),
    changes: [],
    order,
    rounds: starts,
  };
}

/** `RESERVE k1 u1 sku-a TTL 400; WAIT 450; EXPIRE (stock sku-a 1; plain names)`: its steps, untagged. */
function described(p: ScopeProgram): string {
  const { stock } = rendered(p, '');
  const names: Names = {
    key: (i) => p.naming.key.name(i, ''),
    sku: (i) => p.naming.sku.name(i, ''),
    user: (i) => p.naming.user.name(i, ''),
    tag: '',
  };
  const steps = p.template.ops.map((op) => {
    const [first] = renderedOp(op, names).flatMap((o) => stepsOf(o, 1));
    return op.op === 'crowd' ? `${CROWD_SIZE} × ${first} (each its own key and user)` : first;
  });
  const stocks = stock.map((s) => `${specWord(s.sku)} ${s.total}`).join(', ');
  return `${steps.join('; ')} (stock ${stocks || 'none'}; ${describeNaming(p.naming)})`;
}

export function reservationScope(strategy: Strategy): ScopeLanguage<ScopeProgram, Program> {
  return {
    programs: (maxLength) => programsUpTo(strategy, maxLength),
    length: (p) => scopeLength(p.template),
    groupOf: (p) =>
      p.template === CROWD ? 'crowd' : `${waitPositions(p.template).join(',')}${expires(p) ? ' expire' : ''}`,
    // The crowd runs as soon as its turn comes, alone: it is a batch of its own.
    largestBatch: (group) => (group === 'crowd' ? 1 : group.endsWith('expire') ? EXPIRE_BATCH : undefined),
    batch: batchOf,
    describe: described,
  };
}
