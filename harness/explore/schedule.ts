/**
 * How a program's sessions' steps become one order and a spec, whatever the contract: each session is a
 * list of step bodies in the contract's spec language, sent either in an order given in full or in the
 * order Probabilistic Concurrency Testing draws (Burckhardt et al., 2010: a priority per session, the
 * highest runnable one sends its next step, and at each change point the running session drops below
 * every other), and written as a spec whose one permutation is that order — so what is reported is what ran.
 */

/** One step of the spec: which session sends it and its body. */
export interface ProgramStep {
  session: number;
  body: string;
}

/** How a paused operation ends: its RESUME step commits it, rolls it back or kills its backend. */
export type Resume = 'commit' | 'rollback' | 'kill';

/** Where an operation stops, transaction open, and how its RESUME step ends it. */
export interface StepPause<P extends string> {
  at: P;
  resume: Resume;
}

/** A program's schedule: the order its steps are sent in, given in full, or PCT's where it is absent. */
export interface Schedule {
  /** The session that sends each step, in turn. */
  order?: number[];
  priorities: number[];
  changes: number[];
}

/** A program: its sessions' operations (a contract's own), and its schedule. */
export interface ScheduledProgram<Op> extends Schedule {
  sessions: Op[][];
}

/** An operation's spec steps: its own line, stopped at its pause point if it has one, then that RESUME. */
export function pausedSteps(line: string, pause: StepPause<string> | undefined): string[] {
  if (!pause) return [line];
  return [`${line} UNTIL ${pause.at}`, `RESUME ${pause.resume.toUpperCase()}`];
}

/** The program's steps in its schedule's order, each session's operations written out by `stepsOf`. */
export function scheduledSteps<Op>(
  program: ScheduledProgram<Op>,
  stepsOf: (op: Op) => string[],
): ProgramStep[] {
  const sessions = program.sessions.map((ops) => ops.flatMap(stepsOf));
  return program.order
    ? givenOrder(sessions, program.order)
    : pctOrder(sessions, program.priorities, program.changes);
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
 * PCT over the sessions' step lists (each session's own order kept). A session that has just stopped at a
 * pause point (`UNTIL`) passes its turn once, as a thread that blocks would: the step after its pause is
 * another session's (the window a rival is scheduled into), then priorities rule again. One step, not all
 * of them: a rival that blocks on the paused session's locks must not be asked for a second step before
 * the paused one is resumed (an invalid order).
 */
export function pctOrder(
  sessions: readonly (readonly string[])[],
  priorities: readonly number[],
  changes: readonly number[],
): ProgramStep[] {
  const queues = sessions.map((steps) => [...steps]);
  const priority = sessions.map((_, s) => priorities[s] ?? 0);
  const changeAt = new Set(changes);
  const order: ProgramStep[] = [];
  let lowest = Math.min(0, ...priority);
  let passing = -1;
  for (let step = 0; queues.some((q) => q.length > 0); step++) {
    const session = nextSession(queues, priority, passing);
    const body = queues[session]?.shift() as string;
    order.push({ session, body });
    passing = body.includes(' UNTIL ') ? session : -1;
    if (changeAt.has(step)) {
      lowest -= 1;
      priority[session] = lowest;
    }
  }
  return order;
}

/** The steps in the order given: each session's next step when the order names it. */
export function givenOrder(
  sessions: readonly (readonly string[])[],
  order: readonly number[],
): ProgramStep[] {
  const queues = sessions.map((steps) => [...steps]);
  const steps = order.map((session) => ({ session, body: queues[session]?.shift() as string }));
  if (steps.some((s) => s.body === undefined) || queues.some((q) => q.length > 0))
    throw new Error("a program's order does not name each of its sessions' steps once");
  return steps;
}

/** The program as a spec (specOfSteps): its steps in its schedule's order, each operation's by `stepsOf`. */
export function programSpec<Op>(
  program: ScheduledProgram<Op>,
  stepsOf: (op: Op) => string[],
  parts: { header: readonly string[]; setup?: string },
): string {
  return specOfSteps(scheduledSteps(program, stepsOf), program.sessions.length, parts);
}

const sessionName = (s: number) => `s${s + 1}`;

/**
 * The steps as a spec of `sessions` sessions (`reservebench run --spec FILE --strategy ID`): the header as
 * comments, the setup block when there is one, each session's steps named by their place in the order, and
 * that order as its one permutation.
 */
export function specOfSteps(
  order: readonly ProgramStep[],
  sessions: number,
  parts: { header: readonly string[]; setup?: string },
): string {
  const names = order.map((step, i) => ({ ...step, name: `${sessionName(step.session)}-${i + 1}` }));
  // A session that sends nothing is left out: a spec's every session has a step.
  const blocks = Array.from({ length: sessions }, (_, s) => names.filter((n) => n.session === s)).flatMap(
    (own, s) =>
      own.length === 0
        ? []
        : ['', `session ${sessionName(s)}`, ...own.map((n) => `step "${n.name}" { ${n.body} }`)],
  );
  return [
    ...parts.header.map((line) => `# ${line}`),
    ...(parts.setup ? [`setup { ${parts.setup} }`] : []),
    ...blocks,
    '',
    `permutation ${names.map((n) => `"${n.name}"`).join(' ')}`,
    '',
  ].join('\n');
}
