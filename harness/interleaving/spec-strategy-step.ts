/**
 * The spec extension's grammar (see ./spec-parser.ts): a step body that starts with one of these verbs is
 * a step of the engine's own, not SQL. Keywords are case-insensitive; keys, users and skus are taken as
 * written, in double quotes where they hold a space (`RESERVE " k1 " u1 sku-a`, `""` for a quote).
 *
 *   RESERVE <key> <user> <sku> [TTL <ms>] [UNTIL <pause point>] [ON <i>/<n>]
 *   CONFIRM <key> | RELEASE <key> | EXPIRE | DISABLE <sku>   [UNTIL <pause point>] [ON <i>/<n>]
 *   BACKDATE <key>
 *   RESUME COMMIT | RESUME ROLLBACK | RESUME KILL
 *   STATUS <key> | REMAINING <sku>
 *   PAY <key> <payment id> [AMOUNT <minor units>] [UNTIL <pause point>]
 *   WAIT <ms>
 *   RESTART <i>/<n>
 *
 * PAY calls the payment design's `pay` with a session context: the idempotency key, the payment id this
 * worker proposes, and seed 002's payload otherwise (./seed-payment.ts: order-1001, CNY, merchant demo,
 * 3000 unless AMOUNT says), its fingerprint computed from it; UNTIL holds it as it holds a RESERVE.
 * `ON <i>/<n>` (node i of n, counted from 1; default 1/1) ends a step that calls the strategy with a
 * session context; every node a spec names is one of the same n. STATUS and REMAINING call
 * `strategy.status` / `strategy.remaining` on the session's connection, and the answer is the step's
 * value. WAIT completes once the database clock (clock_timestamp()) has passed <ms> from the step's start.
 * RESTART makes node i's later operations run in a new incarnation (a restarted process, its memory
 * gone). RESUME KILL terminates the paused operation's backend as a `kill -9` of its process would,
 * restarts its node, and the session goes on on a new connection; the step's result is an error marked
 * `killed`, an unknown ending.
 */
import { PAUSE_POINTS, type PausePoint } from '../../strategies/contract.ts';
import { PAYMENT_PAUSE_POINTS, type PaymentPausePoint } from '../../strategies/payment/contract.ts';
import { LIFECYCLE_STEPS, type LifecycleStep, type NodeRef, type Step } from './permutation.ts';
import { paymentRequest } from './seed-payment.ts';
import type { Fail, Token } from './spec-tokens.ts';

export const DEFAULT_TTL_MS = 60_000;

/** A word of a step body, with its offset in the source. */
interface Word {
  text: string;
  at: number;
}

/** Where the step's words end: a missing word is reported there. */
interface Body {
  name: string;
  session: string;
  words: Word[];
  end: number;
  fail: Fail;
  /** The step's `ON <i>/<n>`, taken off the end of `words`. */
  on?: NodeRef;
}

/** A word of a step body: a run of non-blanks, or a double-quoted name (`""` inside is one quote). */
const WORD = /"((?:[^"]|"")*)"|\S+/g;

/** Verbs whose operation gets a session context, and with it a node. */
const ON_A_NODE = new Set(['RESERVE', 'CONFIRM', 'RELEASE', 'EXPIRE', 'DISABLE']);

const OTHER_VERBS = new Set(['RESUME', 'STATUS', 'REMAINING', 'WAIT', 'RESTART', 'BACKDATE', 'PAY']);

/** The engine's step a body describes; undefined for SQL. */
export function strategyStep(
  name: string,
  session: string,
  body: Extract<Token, { kind: 'block' }>,
  fail: Fail,
): Step | undefined {
  const words = [...body.text.matchAll(WORD)].map((m) => ({
    text: m[1] === undefined ? m[0] : m[1].replaceAll('""', '"'),
    at: body.bodyAt + (m.index ?? 0),
  }));
  const verb = words[0]?.text.toUpperCase() ?? '';
  if (!ON_A_NODE.has(verb) && !OTHER_VERBS.has(verb)) return undefined;
  const end = body.bodyAt + body.text.length;
  const on = trailingNode(words, verb, fail);
  return stepOf(verb, { name, session, words, end, fail, ...(on ? { on } : {}) });
}

function stepOf(verb: string, body: Body): Step {
  const lifecycle = LIFECYCLE_STEPS.find((op) => op.toUpperCase() === verb);
  if (lifecycle) return lifecycleStep(lifecycle, body);
  switch (verb) {
    case 'RESERVE':
      return reserveStep(body);
    case 'PAY':
      return payStep(body);
    case 'RESUME':
      return resumeStep(body);
    case 'STATUS':
    case 'REMAINING':
      return readStep(verb, body);
    case 'WAIT':
      return {
        name: body.name,
        session: body.session,
        waitMs: wholeMs(onlyArgument(body, 'a number of milliseconds'), 'WAIT', body.fail),
      };
    default:
      return {
        name: body.name,
        session: body.session,
        restart: nodeRef(onlyArgument(body, '<i>/<n>'), 'RESTART', body.fail),
      };
  }
}

/** Takes `ON <i>/<n>` off the end of `words`, for the verbs that run on a node. */
function trailingNode(words: Word[], verb: string, fail: Fail): NodeRef | undefined {
  const on = words.at(-2);
  if (on?.text.toUpperCase() !== 'ON') return undefined;
  if (!ON_A_NODE.has(verb))
    fail(on.at, `${verb} runs on no node; ON <i>/<n> ends a RESERVE, CONFIRM, RELEASE, EXPIRE or DISABLE`);
  const value = words.at(-1) as Word;
  words.splice(-2, 2);
  return nodeRef(value, 'ON', fail);
}

/** `i/n`: node i of n, 1 ≤ i ≤ n. */
function nodeRef(value: Word, keyword: string, fail: Fail): NodeRef {
  const [, i, n] = /^([0-9]+)\/([0-9]+)$/.exec(value.text) ?? [];
  const node = Number(i);
  const of = Number(n);
  if (!i || !Number.isSafeInteger(node) || !Number.isSafeInteger(of) || node < 1 || node > of)
    fail(value.at, `${keyword} needs <i>/<n>, node i of n counted from 1, got "${value.text}"`);
  return { node, of };
}

/** A whole number of milliseconds, at least 1. */
function wholeMs(value: Word, keyword: string, fail: Fail): number {
  const ms = Number(value.text);
  if (!/^[0-9]+$/.test(value.text) || !Number.isSafeInteger(ms) || ms < 1)
    fail(value.at, `${keyword} must be a whole number of milliseconds, got "${value.text}"`);
  return ms;
}

/** The verb's one argument; nothing after it. */
function onlyArgument(body: Body, what: string): Word {
  const { words, end } = body;
  const fail: Fail = body.fail;
  const [verb, value, extra] = words;
  if (!value) fail(end, `${verb?.text} needs ${what}`);
  if (extra) fail(extra.at, `unexpected "${extra.text}" after ${verb?.text} ${value.text}`);
  return value;
}

/** ON given before the step's other words: it must come last. */
function failIfOn(word: Word, fail: Fail): void {
  if (word.text.toUpperCase() === 'ON') fail(word.at, 'ON <i>/<n> comes last in the step');
}

/** RESUME COMMIT / RESUME ROLLBACK / RESUME KILL. */
function resumeStep(body: Body): Step {
  const { words, end } = body;
  const fail: Fail = body.fail;
  const mode = words[1];
  const resume = mode?.text.toLowerCase();
  if (resume !== 'commit' && resume !== 'rollback' && resume !== 'kill')
    fail(
      mode?.at ?? end,
      `RESUME takes COMMIT, ROLLBACK or KILL, got ${mode ? `"${mode.text}"` : 'nothing'}`,
    );
  const extra = words[2];
  if (extra) fail(extra.at, `unexpected "${extra.text}" after RESUME ${mode?.text}`);
  return { name: body.name, session: body.session, resume };
}

/** STATUS key / REMAINING sku. */
function readStep(verb: 'STATUS' | 'REMAINING', body: Body): Step {
  const { name, session } = body;
  if (verb === 'STATUS')
    return { name, session, read: 'status', requestKey: onlyArgument(body, 'a request key').text };
  return { name, session, read: 'remaining', sku: onlyArgument(body, 'a sku').text };
}

/** CONFIRM key / RELEASE key / EXPIRE / DISABLE sku, with an optional UNTIL; BACKDATE key. */
function lifecycleStep(operation: LifecycleStep, body: Body): Step {
  const { name, session, words, end, on } = body;
  const fail: Fail = body.fail;
  const takesKey = operation !== 'expire';
  const [verb, ...rest] = words;
  const requestKey = takesKey ? rest.shift() : undefined;
  if (takesKey && !requestKey) fail(end, `${verb?.text} needs a request key`);
  let until: PausePoint | undefined;
  const [option, value, extra] = rest;
  if (option) {
    failIfOn(option, fail);
    if (option.text.toUpperCase() !== 'UNTIL' || operation === 'backdate')
      fail(option.at, `unexpected "${option.text}" in ${verb?.text}`);
    if (!value) fail(option.at, 'UNTIL needs a pause point');
    until = pausePoint(value, fail);
    if (extra) {
      failIfOn(extra, fail);
      fail(extra.at, `unexpected "${extra.text}" after UNTIL ${value.text}`);
    }
  }
  return {
    name,
    session,
    operation,
    ...(requestKey ? { requestKey: requestKey.text } : {}),
    ...(until ? { until } : {}),
    ...(on ? { on } : {}),
  };
}

/** RESERVE key user sku, then optionally TTL <ms> and UNTIL <pause point> (ON is taken off already). */
function reserveStep(body: Body): Step {
  const { name, session, words, end, on } = body;
  const fail: Fail = body.fail;
  const [, requestKey, user, sku, ...options] = words;
  if (!requestKey || !user || !sku)
    fail(words.at(-1)?.at ?? end, 'RESERVE needs a request key, a user and a sku');
  let ttlMs: number | undefined;
  let until: PausePoint | undefined;
  for (let o = 0; o < options.length; o += 2) {
    const option = options[o];
    const value = options[o + 1];
    if (!option) break;
    failIfOn(option, fail);
    const keyword = option.text.toUpperCase();
    if (keyword !== 'TTL' && keyword !== 'UNTIL')
      fail(
        option.at,
        `unexpected "${option.text}" in RESERVE; expected TTL <ms>, UNTIL <pause point> or ON <i>/<n>`,
      );
    if ((keyword === 'TTL' ? ttlMs : until) !== undefined) fail(option.at, `${keyword} is given twice`);
    if (!value) fail(option.at, `${keyword} needs a value`);
    if (keyword === 'TTL') ttlMs = wholeMs(value, 'TTL', fail);
    else until = pausePoint(value, fail);
  }
  return {
    name,
    session,
    reserve: { requestKey: requestKey.text, user: user.text, sku: sku.text, ttlMs: ttlMs ?? DEFAULT_TTL_MS },
    ...(until ? { until } : {}),
    ...(on ? { on } : {}),
  };
}

/** PAY key payment-id, then optionally AMOUNT <minor units> and UNTIL <pause point>, each once. */
function payStep(body: Body): Step {
  const { name, session, words, end } = body;
  const fail: Fail = body.fail;
  const [, key, paymentId, ...options] = words;
  if (!key || !paymentId) fail(words.at(-1)?.at ?? end, 'PAY needs an idempotency key and a payment id');
  let amount: number | undefined;
  let until: PaymentPausePoint | undefined;
  for (let o = 0; o < options.length; o += 2) {
    const option = options[o] as Word;
    const value = options[o + 1];
    const keyword = option.text.toUpperCase();
    if (keyword !== 'AMOUNT' && keyword !== 'UNTIL')
      fail(
        option.at,
        `unexpected "${option.text}" in PAY; expected AMOUNT <minor units> or UNTIL <pause point>`,
      );
    if ((keyword === 'AMOUNT' ? amount : until) !== undefined) fail(option.at, `${keyword} is given twice`);
    if (!value) fail(option.at, `${keyword} needs a value`);
    if (keyword === 'AMOUNT') amount = minorUnits(value, fail);
    else until = paymentPausePoint(value, fail);
  }
  return {
    name,
    session,
    pay: paymentRequest(key.text, paymentId.text, amount),
    ...(until ? { until } : {}),
  };
}

/** An amount in minor units (3000 = 30.00): a whole number, at least 1. */
function minorUnits(value: Word, fail: Fail): number {
  const amount = Number(value.text);
  if (!/^[0-9]+$/.test(value.text) || !Number.isSafeInteger(amount) || amount < 1)
    fail(value.at, `AMOUNT must be a whole number of minor units, at least 1, got "${value.text}"`);
  return amount;
}

function paymentPausePoint(value: Word, fail: Fail): PaymentPausePoint {
  if (!(PAYMENT_PAUSE_POINTS as readonly string[]).includes(value.text))
    fail(
      value.at,
      `PAY has no pause point "${value.text}"; choose one of: ${PAYMENT_PAUSE_POINTS.join(', ')}`,
    );
  return value.text as PaymentPausePoint;
}

function pausePoint(value: Word, fail: Fail): PausePoint {
  if (!(PAUSE_POINTS as readonly string[]).includes(value.text))
    fail(value.at, `unknown pause point "${value.text}"; choose one of: ${PAUSE_POINTS.join(', ')}`);
  return value.text as PausePoint;
}
