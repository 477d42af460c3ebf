/**
 * The sweep (sweep.ts) run in batches, as the exhaustive scope is (exhaustive.ts): its programs one after
 * another on one table set, each under its own tag, each in its own order, on the interleaving engine
 * (they stop at pause points and race). A program starts once the one before it has ended — every step
 * sent, every paused operation resumed — so its races are its own; an expire of a later program may also
 * expire what an earlier one left due, which the checker sees in the one history of the batch. A batch that
 * fails is halved down to the program that fails alone: one operation against another, as before.
 */
import type { Strategy } from '../../../../strategies/contract.ts';
import type { ScopeLanguage } from '../../../contract/contract-explore.ts';
import { type Program, type ProgramOp, scheduled } from './program.ts';
import { sweepPrograms } from './sweep.ts';

/** The program with every key, user and sku it names prefixed by `tag`. */
function tagged(program: Program, tag: string): Program {
  const op = (o: ProgramOp): ProgramOp => ({
    ...o,
    ...('key' in o ? { key: `${tag}${o.key}` } : {}),
    ...('user' in o ? { user: `${tag}${o.user}` } : {}),
    ...('sku' in o ? { sku: `${tag}${o.sku}` } : {}),
  });
  return {
    ...program,
    stock: program.stock.map((s) => ({ ...s, sku: `${tag}${s.sku}` })),
    sessions: program.sessions.map((ops) => ops.map(op)),
  };
}

/** The programs one after another: session s of each is the batch's session s, each in its own order. */
function concatenated(programs: readonly Program[]): Program {
  const width = String(Math.max(0, programs.length - 1)).length;
  const all = programs.map((p, i) => tagged(p, `${String(i).padStart(width, '0')}.`));
  const count = Math.max(...all.map((p) => p.sessions.length));
  return {
    stock: all.flatMap((p) => p.stock),
    nodes: Math.max(...all.map((p) => p.nodes)),
    sessions: Array.from({ length: count }, (_, s) => all.flatMap((p) => p.sessions[s] ?? [])),
    priorities: Array.from({ length: count }, () => 0),
    changes: [],
    order: all.flatMap((p) => scheduled(p).map((step) => step.session)),
  };
}

export function sweepLanguage(strategy: Strategy): ScopeLanguage<Program, Program> {
  return {
    programs: () => sweepPrograms(strategy),
    length: () => 2,
    groupOf: (p) => `nodes ${p.nodes}`,
    batch: concatenated,
    describe: (p) =>
      scheduled(p)
        .map((step) => `s${step.session + 1}: ${step.body}`)
        .join('; '),
  };
}
