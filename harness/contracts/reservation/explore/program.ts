/**
 * A program the explorer runs: a few sessions, each a short list of contract operations over a handful of
 * users, keys and skus, with the stock they start from, and a schedule (the order the sessions' steps are
 * sent in). An operation may stop at a pause point its design declares; a later step of its session then
 * lets it commit, makes it roll back, or kills its process there. A program is written out as a spec in
 * the suite's own language (specText), which is also how it runs, so what is reported is what ran.
 */
import type { PausePoint } from '../../../../strategies/contract.ts';

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
  | { op: 'restart'; node: number };

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

/** One step of the spec: which session sends it and its body. */
export interface ProgramStep {
  session: number;
  body: string;
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
  }
}

/** The runnable session of highest priority, other than `passing` while another one is runnable. */
function nextSession(queues: readonly string[][], priority: readonly number[], passing: number): number {
  let session = -1;
  for (let s = 0; s < queues.length; s++) {
    if ((queues[s]?.length ?? 0) === 0 || s === passing) continue;
    if (session < 0 || (priority[s] ?? 0) > (priority[session] ?? 0)) session = s;
  }
  return session < 0 ? passing : session;
}

/**
 * The order the steps are sent in: PCT over the sessions' step lists (each session's own order kept). A
 * session that has just stopped at a pause point passes its turn once, as a thread that blocks would: the
 * step after its pause is another session's (the window a rival is scheduled into), then priorities rule
 * again. One step, not all of them: a rival that blocks on the paused session's locks must not be asked for
 * a second step before the paused one is resumed (an invalid order).
 */
export function scheduled(program: Program): ProgramStep[] {
  const queues = program.sessions.map((ops) => ops.flatMap((op) => stepsOf(op, program.nodes)));
  if (program.order) return inOrder(queues, program.order);
  const priority = program.sessions.map((_, s) => program.priorities[s] ?? 0);
  const changes = new Set(program.changes);
  const order: ProgramStep[] = [];
  let lowest = Math.min(0, ...priority);
  let passing = -1;
  for (let step = 0; queues.some((q) => q.length > 0); step++) {
    const session = nextSession(queues, priority, passing);
    const body = queues[session]?.shift() as string;
    order.push({ session, body });
    passing = body.includes(' UNTIL ') ? session : -1;
    if (changes.has(step)) {
      lowest -= 1;
      priority[session] = lowest;
    }
  }
  return order;
}

/** The steps in the order given: each session's next step when the order names it. */
function inOrder(queues: string[][], order: readonly number[]): ProgramStep[] {
  const steps = order.map((session) => ({ session, body: queues[session]?.shift() as string }));
  if (steps.some((s) => s.body === undefined) || queues.some((q) => q.length > 0))
    throw new Error("a program's order does not name each of its sessions' steps once");
  return steps;
}

const sessionName = (s: number) => `s${s + 1}`;

/** The program as a spec the suite runs (`reservebench run --spec FILE --strategy ID`). */
export function specText(program: Program, header: readonly string[] = []): string {
  const order = scheduled(program);
  const names = order.map((step, i) => ({ ...step, name: `${sessionName(step.session)}-${i + 1}` }));
  const stock = program.stock.map((s) => `${s.sku} ${s.total}`).join(' ');
  const sessions = program.sessions.flatMap((_, s) => [
    '',
    `session ${sessionName(s)}`,
    ...names.filter((n) => n.session === s).map((n) => `step "${n.name}" { ${n.body} }`),
  ]);
  return [
    ...header.map((line) => `# ${line}`),
    `setup { STOCK ${stock} }`,
    ...sessions,
    '',
    `permutation ${names.map((n) => `"${n.name}"`).join(' ')}`,
    '',
  ].join('\n');
}
