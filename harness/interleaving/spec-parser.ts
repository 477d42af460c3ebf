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
 * Extension (the only one): a step whose body starts with RESERVE, RESUME, CONFIRM, RELEASE, EXPIRE or
 * BACKDATE calls the strategy instead of sending SQL, and parses into the engine's strategy steps:
 *
 *   step "t1-take" { RESERVE req-t1 user-0001 sku-lab-01 UNTIL before-commit }
 *   step "t2-take" { RESERVE req-t2 user-0002 sku-lab-01 TTL 500 }
 *   step "t1-undo" { RESUME ROLLBACK }     # or RESUME COMMIT
 *
 *   step "c1"      { CONFIRM req-t1 }         # also RELEASE req-t1, EXPIRE, BACKDATE req-t1, DISABLE sku
 *   step "e1"      { EXPIRE UNTIL before-commit }
 *
 * CONFIRM, RELEASE and EXPIRE call the strategy's lifecycle operations (and, with UNTIL, stop at that pause
 * point like a reserve); BACKDATE moves a reservation's expiry into the past through the strategy's hook.
 * RESERVE takes a request key, a user and a sku, then optionally `TTL <ms>` (default 60000) and
 * `UNTIL <pause point>`: the step then completes when the operation reaches that point, its transaction
 * open, and a later RESUME step of the same session lets it commit or makes it roll back there. The
 * extension's keywords are case-insensitive; values are taken as written.
 *
 * Every error is one line, `file:line:column: message`, and exits 2.
 */
import { PAUSE_POINTS, type PausePoint } from '../../strategies/contract.ts';
import { Errors } from '../errors.ts';
import {
  type Blocker,
  LIFECYCLE_STEPS,
  type LifecycleStep,
  type Permutation,
  type Step,
} from './permutation.ts';

export const DEFAULT_TTL_MS = 60_000;

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

const KEYWORDS = new Set(['notices', 'permutation', 'session', 'setup', 'step', 'teardown']);

type Token =
  | { kind: 'word' | 'quoted' | 'integer'; text: string; at: number }
  | { kind: 'punct'; text: '(' | ')' | ',' | '*'; at: number }
  /** `at` is where the `{` is, `bodyAt` where the text starts. */
  | { kind: 'block'; text: string; at: number; bodyAt: number }
  | { kind: 'end'; text: ''; at: number };

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

const BLANK = /[ \t\r\f]/;

function tokenize(source: string, fail: (at: number, message: string) => never): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i] ?? '';
    if (c === '\n' || BLANK.test(c)) {
      i += 1;
    } else if (c === '#') {
      while (i < source.length && source[i] !== '\n') i += 1;
    } else if (/[A-Za-z_]/.test(c)) {
      const word = /[A-Za-z_][A-Za-z0-9_]*/y;
      word.lastIndex = i;
      const text = word.exec(source)?.[0] ?? c;
      tokens.push({ kind: 'word', text, at: i });
      i += text.length;
    } else if (/[0-9]/.test(c)) {
      const digits = /[0-9]+/y;
      digits.lastIndex = i;
      const text = digits.exec(source)?.[0] ?? c;
      tokens.push({ kind: 'integer', text, at: i });
      i += text.length;
    } else if (c === '"') {
      let text = '';
      let j = i + 1;
      for (;;) {
        const d = source[j];
        if (d === undefined) fail(i, 'unterminated quoted identifier');
        if (d === '\n') fail(j, 'unexpected newline in quoted identifier');
        if (d === '"' && source[j + 1] === '"') {
          text += '"';
          j += 2;
        } else if (d === '"') {
          break;
        } else {
          text += d;
          j += 1;
        }
      }
      tokens.push({ kind: 'quoted', text, at: i });
      i = j + 1;
    } else if (c === '{') {
      const close = source.indexOf('}', i + 1);
      if (close < 0) fail(i, 'unterminated sql block');
      let from = i + 1;
      let to = close;
      while (from < to && BLANK.test(source[from] ?? '')) from += 1;
      while (to > from && BLANK.test(source[to - 1] ?? '')) to -= 1;
      tokens.push({ kind: 'block', text: source.slice(from, to), at: i, bodyAt: from });
      i = close + 1;
    } else if (c === '(' || c === ')' || c === ',' || c === '*') {
      tokens.push({ kind: 'punct', text: c, at: i });
      i += 1;
    } else {
      fail(i, `syntax error: unexpected character "${c}"`);
    }
  }
  tokens.push({ kind: 'end', text: '', at: source.length });
  return tokens;
}

function describe(token: Token): string {
  if (token.kind === 'end') return 'end of file';
  if (token.kind === 'block') return 'a { block }';
  return `"${token.text}"`;
}

const isKeyword = (token: Token, keyword: string) => token.kind === 'word' && token.text === keyword;
const isName = (token: Token) =>
  token.kind === 'quoted' || (token.kind === 'word' && !KEYWORDS.has(token.text));

/** CONFIRM key / RELEASE key / EXPIRE / BACKDATE key, each with an optional UNTIL <pause point>. */
function lifecycleStep(
  name: string,
  session: string,
  operation: LifecycleStep,
  words: { text: string; at: number }[],
  afterBody: number,
  fail: (at: number, message: string) => never,
): Step {
  const takesKey = operation !== 'expire';
  const [verb, ...rest] = words;
  const requestKey = takesKey ? rest.shift() : undefined;
  if (takesKey && !requestKey) fail(afterBody, `${verb?.text} needs a request key`);
  let until: PausePoint | undefined;
  const [option, value, extra] = rest;
  if (option) {
    if (option.text.toUpperCase() !== 'UNTIL' || operation === 'backdate')
      fail(option.at, `unexpected "${option.text}" in ${verb?.text}`);
    if (!value) fail(option.at, 'UNTIL needs a pause point');
    if (!(PAUSE_POINTS as readonly string[]).includes(value.text))
      fail(value.at, `unknown pause point "${value.text}"; choose one of: ${PAUSE_POINTS.join(', ')}`);
    until = value.text as PausePoint;
    if (extra) fail(extra.at, `unexpected "${extra.text}" after UNTIL ${value.text}`);
  }
  return {
    name,
    session,
    operation,
    ...(requestKey ? { requestKey: requestKey.text } : {}),
    ...(until ? { until } : {}),
  };
}

/** RESERVE / RESUME / lifecycle bodies; undefined for SQL. */
function strategyStep(
  name: string,
  session: string,
  body: Extract<Token, { kind: 'block' }>,
  fail: (at: number, message: string) => never,
): Step | undefined {
  const words = [...body.text.matchAll(/\S+/g)].map((m) => ({
    text: m[0],
    at: body.bodyAt + (m.index ?? 0),
  }));
  const verb = words[0]?.text.toUpperCase();
  const afterBody = body.bodyAt + body.text.length;
  if (verb === 'RESUME') {
    const mode = words[1];
    const resume = mode?.text.toLowerCase();
    if (resume !== 'commit' && resume !== 'rollback')
      fail(
        mode?.at ?? afterBody,
        `RESUME takes COMMIT or ROLLBACK, got ${mode ? `"${mode.text}"` : 'nothing'}`,
      );
    const extra = words[2];
    if (extra) fail(extra.at, `unexpected "${extra.text}" after RESUME ${mode?.text}`);
    return { name, session, resume };
  }
  const lifecycle = LIFECYCLE_STEPS.find((op) => op.toUpperCase() === verb);
  if (lifecycle) return lifecycleStep(name, session, lifecycle, words, afterBody, fail);
  if (verb !== 'RESERVE') return undefined;
  const [, requestKey, user, sku, ...options] = words;
  if (!requestKey || !user || !sku)
    fail(words.at(-1)?.at ?? afterBody, 'RESERVE needs a request key, a user and a sku');
  let ttlMs: number | undefined;
  let until: PausePoint | undefined;
  for (let o = 0; o < options.length; o += 2) {
    const option = options[o];
    const value = options[o + 1];
    if (!option) break;
    const keyword = option.text.toUpperCase();
    if (keyword !== 'TTL' && keyword !== 'UNTIL')
      fail(option.at, `unexpected "${option.text}" in RESERVE; expected TTL <ms> or UNTIL <pause point>`);
    if ((keyword === 'TTL' ? ttlMs : until) !== undefined) fail(option.at, `${keyword} is given twice`);
    if (!value) fail(option.at, `${keyword} needs a value`);
    if (keyword === 'TTL') {
      ttlMs = Number(value.text);
      if (!/^[0-9]+$/.test(value.text) || !Number.isSafeInteger(ttlMs) || ttlMs < 1)
        fail(value.at, `TTL must be a whole number of milliseconds, got "${value.text}"`);
    } else {
      if (!(PAUSE_POINTS as readonly string[]).includes(value.text))
        fail(value.at, `unknown pause point "${value.text}"; choose one of: ${PAUSE_POINTS.join(', ')}`);
      until = value.text as PausePoint;
    }
  }
  return {
    name,
    session,
    reserve: { requestKey: requestKey.text, user: user.text, sku: sku.text, ttlMs: ttlMs ?? DEFAULT_TTL_MS },
    ...(until ? { until } : {}),
  };
}

interface ListedStep {
  name: string;
  at: number;
  blockers: { blocker: Blocker; at: number }[];
}

export function parseSpec(source: string, file: string): ParsedSpec {
  const locate = locator(source);
  const fail: (at: number, message: string) => never = (at, message) => {
    const { line, column } = locate(at);
    throw Errors.badInput(`${file}:${line}:${column}: ${message}`);
  };
  const tokens = tokenize(source, fail);
  let next = 0;
  const peek = (): Token => tokens[next] ?? { kind: 'end', text: '', at: source.length };
  const take = (): Token => {
    const token = peek();
    if (token.kind !== 'end') next += 1;
    return token;
  };
  const block = (what: string): string => {
    const token = take();
    if (token.kind !== 'block') fail(token.at, `expected { ${what} }, got ${describe(token)}`);
    return token.text;
  };
  const name = (what: string): { name: string; at: number } => {
    const token = take();
    if (!isName(token)) fail(token.at, `expected ${what}, got ${describe(token)}`);
    return { name: token.text, at: token.at };
  };

  const spec: ParsedSpec = { setup: [], sessions: [], permutations: [], unused: [] };
  while (isKeyword(peek(), 'setup')) {
    take();
    spec.setup.push(block('SQL'));
  }
  if (isKeyword(peek(), 'teardown')) {
    take();
    spec.teardown = block('SQL');
  }
  const defined = new Map<string, Step>();
  do {
    const keyword = take();
    if (!isKeyword(keyword, 'session')) fail(keyword.at, `expected "session", got ${describe(keyword)}`);
    const session = name('a session name');
    if (spec.sessions.some((s) => s.name === session.name))
      fail(session.at, `duplicate session name "${session.name}"`);
    const entry: SpecSession = { name: session.name, steps: [] };
    if (isKeyword(peek(), 'setup')) {
      take();
      entry.setup = block('SQL');
    }
    if (!isKeyword(peek(), 'step')) fail(peek().at, `session "${session.name}" needs at least one step`);
    while (isKeyword(peek(), 'step')) {
      take();
      const step = name('a step name');
      if (defined.has(step.name)) fail(step.at, `duplicate step name "${step.name}"`);
      const body = take();
      if (body.kind !== 'block')
        fail(body.at, `expected { SQL } for step "${step.name}", got ${describe(body)}`);
      const parsed = strategyStep(step.name, session.name, body, fail) ?? {
        name: step.name,
        session: session.name,
        sql: body.text,
      };
      defined.set(step.name, parsed);
      entry.steps.push({ step: parsed, text: body.text, at: locate(step.at) });
    }
    if (isKeyword(peek(), 'teardown')) {
      take();
      entry.teardown = block('SQL');
    }
    spec.sessions.push(entry);
  } while (isKeyword(peek(), 'session'));

  const used = new Set<string>();
  const permutationOf = (listed: ListedStep[]): Permutation => {
    const inPermutation = new Set(listed.map((l) => l.name));
    const steps = listed.map((entry): Step => {
      const step = defined.get(entry.name);
      if (!step) return fail(entry.at, `undefined step "${entry.name}" specified in permutation`);
      used.add(entry.name);
      for (const { blocker, at } of entry.blockers) {
        if (blocker.kind === 'once') continue;
        const other = defined.get(blocker.step);
        if (!other || !inPermutation.has(blocker.step))
          fail(
            at,
            `undefined blocking step "${blocker.step}" referenced in permutation step "${entry.name}"`,
          );
        if (other.session === step.session)
          fail(at, `permutation step "${entry.name}" cannot block on its own session`);
      }
      return entry.blockers.length > 0 ? { ...step, blockers: entry.blockers.map((b) => b.blocker) } : step;
    });
    return { sessions: spec.sessions.map((s) => s.name), steps };
  };
  while (isKeyword(peek(), 'permutation')) {
    take();
    const listed: ListedStep[] = [];
    do {
      const step = name('a step name');
      const entry: ListedStep = { name: step.name, at: step.at, blockers: [] };
      if (peek().text === '(' && peek().kind === 'punct') {
        take();
        for (;;) {
          const token = peek();
          if (token.kind === 'punct' && token.text === '*') {
            take();
            entry.blockers.push({ blocker: { kind: 'once' }, at: token.at });
          } else {
            const other = name('a step name or * in the annotation');
            if (isKeyword(peek(), 'notices')) {
              take();
              const count = take();
              if (count.kind !== 'integer')
                fail(count.at, `expected a number of notices, got ${describe(count)}`);
              entry.blockers.push({
                blocker: { kind: 'notices', step: other.name, count: Number(count.text) },
                at: other.at,
              });
            } else {
              entry.blockers.push({ blocker: { kind: 'step', step: other.name }, at: other.at });
            }
          }
          const separator = take();
          if (separator.kind === 'punct' && separator.text === ')') break;
          if (separator.kind !== 'punct' || separator.text !== ',')
            fail(
              separator.at,
              `expected "," or ")" in the annotation of "${step.name}", got ${describe(separator)}`,
            );
        }
      }
      listed.push(entry);
    } while (isName(peek()));
    spec.permutations.push(permutationOf(listed));
  }
  const rest = peek();
  if (rest.kind !== 'end')
    fail(rest.at, `expected "session", "permutation" or end of file, got ${describe(rest)}`);
  spec.unused =
    spec.permutations.length > 0 ? [...defined.keys()].filter((stepName) => !used.has(stepName)) : [];
  return spec;
}
