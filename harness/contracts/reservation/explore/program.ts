/**
 * A program the explorer runs: a few sessions, each a short list of contract operations over a handful of
 * users, keys and skus, with the stock they start from, and a schedule (the order the sessions' steps are
 * sent in). An operation may stop at a pause point its design declares; a later step of its session then
 * lets it commit, makes it roll back, or kills its process there. A program is written out as a spec in
 * the suite's own language (specText), which is also how it runs, so what is reported is what ran.
 */
import type { PausePoint } from '../../../../strategies/contract.ts';
import { givenOrder, type ProgramStep, pctOrder, specOfSteps } from '../../../explore/schedule.ts';

export type Resume = 'commit' | 'rollback' | 'kill';

/** Where an operation stops, and how its session goes on from there. */
export interface Pause {
  at: PausePoint;
  resume: Resume;
}

/** `node`: 1–3, the node the operation runs on when the program has that many (see nodeOf). */
export type ProgramOp =
  | { op: 'reserve'; key: string; user: string; sku: string; ttlMs: number; node: number; pause?: Pause }
  | { op: 'confirm' | 'release'; key: string; node: number; pause?: Pause }
  | { op: 'expire'; node: number; pause?: Pause }
  | { op: 'disable'; sku: string; node: number; pause?: Pause }
  | { op: 'backdate'; key: string }
  | { op: 'status'; key: string }
  | { op: 'remaining'; sku: string }
  /** The database clock passes `ms` (real time, observed): short TTLs run out without the test hook. */
  | { op: 'wait'; ms: number }
  | { op: 'restart'; node: number }
  /**
   * The primary fails over to its synchronous standby, the step after it in flight (drive-failover.ts):
   * on a cluster only, in a session of its own, at most once per program.
   */
  | { op: 'failover' };

export interface Program {
  stock: { sku: string; total: number }[];
  nodes: number;
  sessions: ProgramOp[][];
  /**
   * The schedule, as Probabilistic Concurrency Testing draws it (Burckhardt et al., 2010): a priority per
   * session, the highest runnable one runs its next step, and at each change point (a step count) the
   * running session drops below every other. A session that just stopped at a pause point passes its turn
   * once (scheduled).
   */
  priorities: number[];
  changes: number[];
  /**
   * Or an order given in full: the session that sends each step, in turn (the exhaustive scope's batches,
   * whose programs take turns round by round); PCT decides where it is absent.
   */
  order?: number[];
  /**
   * With `order`: the steps run round by round, each round's sessions side by side (drive-rounds.ts); the
   * index of each round's first step. Only for programs that never pause and share no row across sessions.
   */
  rounds?: number[];
}

/** An operation's node 1–3 on a program of `nodes`: ((node − 1) mod nodes) + 1. */
const nodeOf = (node: number, nodes: number) => ((node - 1) % nodes) + 1;

function onNode(node: number, nodes: number): string {
  return nodes > 1 ? ` ON ${nodeOf(node, nodes)}/${nodes}` : '';
}

function untilPart(pause: Pause | undefined): string {
  return pause ? ` UNTIL ${pause.at}` : '';
}

/** A key, user or sku as a step writes it: quoted where it holds a space or starts with a quote. */
export function specWord(name: string): string {
  return /\s/.test(name) || name.startsWith('"') ? `"${name.replaceAll('"', '""')}"` : name;
}

/** The spec steps of one operation: its own, and the RESUME of its pause if it has one. */
export function stepsOf(op: ProgramOp, nodes: number): string[] {
  const resume = 'pause' in op && op.pause ? [`RESUME ${op.pause.resume.toUpperCase()}`] : [];
  const key = 'key' in op ? specWord(op.key) : '';
  const sku = 'sku' in op ? specWord(op.sku) : '';
  switch (op.op) {
    case 'reserve':
      return [
        `RESERVE ${key} ${specWord(op.user)} ${sku} TTL ${op.ttlMs}${untilPart(op.pause)}${onNode(op.node, nodes)}`,
        ...resume,
      ];
    case 'confirm':
    case 'release':
      return [`${op.op.toUpperCase()} ${key}${untilPart(op.pause)}${onNode(op.node, nodes)}`, ...resume];
    case 'expire':
      return [`EXPIRE${untilPart(op.pause)}${onNode(op.node, nodes)}`, ...resume];
    case 'disable':
      return [`DISABLE ${sku}${untilPart(op.pause)}${onNode(op.node, nodes)}`, ...resume];
    case 'backdate':
      return [`BACKDATE ${key}`];
    case 'status':
      return [`STATUS ${key}`];
    case 'remaining':
      return [`REMAINING ${sku}`];
    case 'wait':
      return [`WAIT ${op.ms}`];
    case 'restart':
      return [`RESTART ${nodeOf(op.node, nodes)}/${nodes}`];
    case 'failover':
      return ['FAILOVER'];
  }
}

/** The order the steps are sent in: the program's own, or PCT's (schedule.ts) over its sessions' steps. */
export function scheduled(program: Program): ProgramStep[] {
  const sessions = program.sessions.map((ops) => ops.flatMap((op) => stepsOf(op, program.nodes)));
  return program.order
    ? givenOrder(sessions, program.order)
    : pctOrder(sessions, program.priorities, program.changes);
}

/** The program as a spec the suite runs (`reservebench run --spec FILE --strategy ID`). */
export function specText(program: Program, header: readonly string[] = []): string {
  const stock = program.stock.map((s) => `${s.sku} ${s.total}`).join(' ');
  return specOfSteps(scheduled(program), program.sessions.length, { header, setup: `STOCK ${stock}` });
}
