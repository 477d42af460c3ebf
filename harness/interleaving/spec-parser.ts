/**
 * PostgreSQL isolation-tester specs (src/test/isolation/README, specparse.y, specscanner.l), parsed into
 * the engine's sessions, steps and permutations.
 *
 *   spec        := setup* teardown? session+ permutation*
 *   setup       := "setup" BLOCK                 before each permutation, on the control connection
 *   teardown    := "teardown" BLOCK              after each permutation
 *   session     := "session" NAME setup? step+ teardown?     its own connection; setup/teardown on it
 *   step        := "step" NAME BLOCK
 *   permutation := "permutation" pstep+           the steps in the order they are sent
 *   pstep       := NAME | NAME "(" blocker ("," blocker)* ")"
 *   blocker     := "*" | NAME | NAME "notices" INTEGER
 *
 * NAME is `[A-Za-z_][A-Za-z0-9_]*` or "quoted" (`""` for a quote inside); the keywords setup, teardown,
 * session, step, permutation and notices are lower case and cannot be unquoted names. `#` starts a
 * comment outside blocks. A BLOCK runs from `{` to the first `}` (as in the tester, SQL cannot contain a
 * `}`); spaces and tabs are trimmed at both ends, newlines are kept, because the tester prints the text.
 * With no permutation, every interleaving of the sessions' steps runs (./all-permutations.ts).
 * Annotations: `s2a(*)` reports s2a as waiting once; `s2a(s1b)` reports s2a completed only once s1b has
 * completed; `s2a(s1b notices 1)` only once s1b's session has sent one more notice.
 *
 * Extension (the only one): a step whose body starts with RESUME, WAIT, RESTART or a verb of a contract
 * the spec is parsed for (RESERVE, CONFIRM, …, PAY: each contract's SpecVerbs) is a step of the engine's
 * own instead of SQL, and parses (./spec-steps.ts, and each contract's verbs, which give the grammar) into
 * the engine's steps:
 *
 *   step "t1-take" { RESERVE req-t1 user-0001 sku-lab-01 UNTIL before-commit }
 *   step "t2-take" { RESERVE req-t2 user-0002 sku-lab-01 TTL 500 }
 *   step "t1-undo" { RESUME ROLLBACK }     # or RESUME COMMIT, or RESUME KILL
 *
 *   step "c1"      { CONFIRM req-t1 }         # also RELEASE req-t1, EXPIRE, BACKDATE req-t1, DISABLE sku
 *   step "e1"      { EXPIRE UNTIL before-commit }
 *
 *   step "n2-take" { RESERVE req-t3 user-0003 sku-lab-01 ON 2/2 }   # on node 2 of 2 (default 1/1)
 *   step "n1-down" { RESTART 1/2 }           # node 1's later operations: a new incarnation, memory gone
 *   step "st"      { STATUS req-t1 }         # the step's value: strategy.status, on its connection
 *   step "left"    { REMAINING sku-lab-01 }  # the step's value: strategy.remaining
 *   step "later"   { WAIT 500 }              # until the database clock has passed 500 ms
 *
 * A step with `UNTIL <pause point>` completes when its operation reaches that point, its transaction
 * open, and a later RESUME step of the same session lets it commit, makes it roll back there, or kills it
 * (KILL: its backend is terminated as a `kill -9` of its process would, its node restarts, the session
 * goes on on a new connection, and the step's result is an error marked `killed`: an unknown ending).
 * `ON <i>/<n>` ends a step whose operation runs on a node; every node of a spec is one of the same n.
 * The extension's keywords are case-insensitive; values are taken as written.
 *
 * Every error is one line, `file:line:column: message`, and exits 2.
 */
import { Errors } from '../errors.ts';
import { nodeCountConflict, nodeOf } from './nodes.ts';
import type { Blocker, Permutation, Step } from './permutation.ts';
import { specStep } from './spec-steps.ts';
import { describe, type Fail, isKeyword, isName, TokenCursor, tokenize } from './spec-tokens.ts';
import type { SpecVerbs } from './spec-verbs.ts';

export interface SpecPosition {
  line: number;
  column: number;
}

export interface SpecStep {
  step: Step;
  /** The body as written, which the output prints after the step's name. */
  text: string;
  at: SpecPosition;
}

export interface SpecSession {
  name: string;
  setup?: string;
  teardown?: string;
  steps: SpecStep[];
}

export interface ParsedSpec {
  setup: string[];
  teardown?: string;
  sessions: SpecSession[];
  /** The permutations the spec lists, annotations attached; none: every interleaving runs. */
  permutations: Permutation[];
  /** Steps that no listed permutation uses (the tester warns about them). */
  unused: string[];
}

/** Offsets to 1-based line and column. */
function locator(source: string): (offset: number) => SpecPosition {
  const lineStarts = [0];
  for (let i = 0; i < source.length; i++) if (source[i] === '\n') lineStarts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if ((lineStarts[mid] ?? 0) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - (lineStarts[lo] ?? 0) + 1 };
  };
}

interface ListedStep {
  name: string;
  at: number;
  blockers: { blocker: Blocker; at: number }[];
}

/** `verbs`: the contracts whose steps the spec may use beside SQL, WAIT, RESTART and RESUME. */
export function parseSpec(source: string, file: string, verbs: readonly SpecVerbs[] = []): ParsedSpec {
  return new SpecParser(source, file, verbs).parse();
}

class SpecParser {
  private readonly locate: (offset: number) => SpecPosition;
  private readonly fail: Fail;
  private readonly tokens: TokenCursor;
  private readonly spec: ParsedSpec = { setup: [], sessions: [], permutations: [], unused: [] };
  private readonly defined = new Map<string, Step>();
  /** Steps some listed permutation uses. */
  private readonly used = new Set<string>();
  /** The first step that runs on (or restarts) a node: every other one must count the nodes alike. */
  private firstOnNode?: Step;

  constructor(
    source: string,
    file: string,
    private readonly verbs: readonly SpecVerbs[],
  ) {
    const locate = locator(source);
    this.locate = locate;
    this.fail = (at, message) => {
      const { line, column } = locate(at);
      throw Errors.badInput(`${file}:${line}:${column}: ${message}`);
    };
    this.tokens = new TokenCursor(tokenize(source, this.fail), this.fail, source.length);
  }

  parse(): ParsedSpec {
    const { tokens, spec } = this;
    while (tokens.accept('setup')) spec.setup.push(tokens.block('SQL'));
    if (tokens.accept('teardown')) spec.teardown = tokens.block('SQL');
    do spec.sessions.push(this.session());
    while (isKeyword(tokens.peek(), 'session'));
    while (tokens.accept('permutation')) spec.permutations.push(this.permutation());
    const rest = tokens.peek();
    if (rest.kind !== 'end')
      this.fail(rest.at, `expected "session", "permutation" or end of file, got ${describe(rest)}`);
    spec.unused =
      spec.permutations.length > 0 ? [...this.defined.keys()].filter((name) => !this.used.has(name)) : [];
    return spec;
  }

  /** session NAME setup? step+ teardown? */
  private session(): SpecSession {
    const { tokens } = this;
    const keyword = tokens.take();
    if (!isKeyword(keyword, 'session')) this.fail(keyword.at, `expected "session", got ${describe(keyword)}`);
    const session = tokens.name('a session name');
    if (this.spec.sessions.some((s) => s.name === session.name))
      this.fail(session.at, `duplicate session name "${session.name}"`);
    const entry: SpecSession = { name: session.name, steps: [] };
    if (tokens.accept('setup')) entry.setup = tokens.block('SQL');
    if (!isKeyword(tokens.peek(), 'step'))
      this.fail(tokens.peek().at, `session "${session.name}" needs at least one step`);
    while (tokens.accept('step')) entry.steps.push(this.step(session.name));
    if (tokens.accept('teardown')) entry.teardown = tokens.block('SQL');
    return entry;
  }

  /** step NAME BLOCK, the "step" taken: SQL, or a strategy step. */
  private step(session: string): SpecStep {
    const { tokens } = this;
    const step = tokens.name('a step name');
    if (this.defined.has(step.name)) this.fail(step.at, `duplicate step name "${step.name}"`);
    const body = tokens.take();
    if (body.kind !== 'block')
      this.fail(body.at, `expected { SQL } for step "${step.name}", got ${describe(body)}`);
    const parsed = specStep(step.name, session, body, this.fail, this.verbs) ?? {
      name: step.name,
      session,
      sql: body.text,
    };
    if (nodeOf(parsed)) {
      this.firstOnNode ??= parsed;
      const conflict = nodeCountConflict(this.firstOnNode, parsed);
      if (conflict) this.fail(body.bodyAt, conflict);
    }
    this.defined.set(step.name, parsed);
    return { step: parsed, text: body.text, at: this.locate(step.at) };
  }

  /** pstep+, the "permutation" taken. */
  private permutation(): Permutation {
    const listed: ListedStep[] = [];
    do listed.push(this.listedStep());
    while (isName(this.tokens.peek()));
    const inPermutation = new Set(listed.map((l) => l.name));
    const steps = listed.map((entry) => this.permutationStep(entry, inPermutation));
    return { sessions: this.spec.sessions.map((s) => s.name), steps };
  }

  /** NAME, or NAME "(" blocker ("," blocker)* ")". */
  private listedStep(): ListedStep {
    const { tokens } = this;
    const step = tokens.name('a step name');
    const entry: ListedStep = { name: step.name, at: step.at, blockers: [] };
    const open = tokens.peek();
    if (open.text !== '(' || open.kind !== 'punct') return entry;
    tokens.take();
    for (;;) {
      entry.blockers.push(this.blocker());
      const separator = tokens.take();
      if (separator.kind === 'punct' && separator.text === ')') return entry;
      if (separator.kind !== 'punct' || separator.text !== ',')
        this.fail(
          separator.at,
          `expected "," or ")" in the annotation of "${step.name}", got ${describe(separator)}`,
        );
    }
  }

  /** "*" | NAME | NAME "notices" INTEGER */
  private blocker(): { blocker: Blocker; at: number } {
    const { tokens } = this;
    const token = tokens.peek();
    if (token.kind === 'punct' && token.text === '*') {
      tokens.take();
      return { blocker: { kind: 'once' }, at: token.at };
    }
    const other = tokens.name('a step name or * in the annotation');
    if (!tokens.accept('notices')) return { blocker: { kind: 'step', step: other.name }, at: other.at };
    const count = tokens.take();
    if (count.kind !== 'integer') this.fail(count.at, `expected a number of notices, got ${describe(count)}`);
    return { blocker: { kind: 'notices', step: other.name, count: Number(count.text) }, at: other.at };
  }

  /** A listed step as the engine runs it: defined, and blocking only on other sessions' listed steps. */
  private permutationStep(entry: ListedStep, inPermutation: ReadonlySet<string>): Step {
    const step = this.defined.get(entry.name);
    if (!step) return this.fail(entry.at, `undefined step "${entry.name}" specified in permutation`);
    this.used.add(entry.name);
    for (const { blocker, at } of entry.blockers) {
      if (blocker.kind === 'once') continue;
      const other = this.defined.get(blocker.step);
      if (!other || !inPermutation.has(blocker.step))
        this.fail(
          at,
          `undefined blocking step "${blocker.step}" referenced in permutation step "${entry.name}"`,
        );
      if (other.session === step.session)
        this.fail(at, `permutation step "${entry.name}" cannot block on its own session`);
    }
    return entry.blockers.length > 0 ? { ...step, blockers: entry.blockers.map((b) => b.blocker) } : step;
  }
}
