/**
 * The spec extension's grammar (see ./spec-parser.ts): a step body that starts with RESERVE, RESUME,
 * CONFIRM, RELEASE, EXPIRE, BACKDATE or DISABLE is a strategy step, not SQL.
 */
import { PAUSE_POINTS, type PausePoint } from '../../strategies/contract.ts';
import { LIFECYCLE_STEPS, type LifecycleStep, type Step } from './permutation.ts';
import type { Fail, Token } from './spec-tokens.ts';

export const DEFAULT_TTL_MS = 60_000;

/** A word of a step body, with its offset in the source. */
interface Word {
  text: string;
  at: number;
}

/** RESERVE / RESUME / lifecycle bodies; undefined for SQL. */
export function strategyStep(
  name: string,
  session: string,
  body: Extract<Token, { kind: 'block' }>,
  fail: Fail,
): Step | undefined {
  const words = [...body.text.matchAll(/\S+/g)].map((m) => ({
    text: m[0],
    at: body.bodyAt + (m.index ?? 0),
  }));
  const verb = words[0]?.text.toUpperCase();
  const afterBody = body.bodyAt + body.text.length;
  if (verb === 'RESUME') return resumeStep(name, session, words, afterBody, fail);
  const lifecycle = LIFECYCLE_STEPS.find((op) => op.toUpperCase() === verb);
  if (lifecycle) return lifecycleStep(name, session, lifecycle, words, afterBody, fail);
  if (verb !== 'RESERVE') return undefined;
  return reserveStep(name, session, words, afterBody, fail);
}

/** RESUME COMMIT / RESUME ROLLBACK. */
function resumeStep(name: string, session: string, words: Word[], afterBody: number, fail: Fail): Step {
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

/** CONFIRM key / RELEASE key / EXPIRE / BACKDATE key, each with an optional UNTIL <pause point>. */
function lifecycleStep(
  name: string,
  session: string,
  operation: LifecycleStep,
  words: Word[],
  afterBody: number,
  fail: Fail,
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
    until = pausePoint(value, fail);
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

/** RESERVE key user sku, then optionally TTL <ms> and UNTIL <pause point>. */
function reserveStep(name: string, session: string, words: Word[], afterBody: number, fail: Fail): Step {
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
      until = pausePoint(value, fail);
    }
  }
  return {
    name,
    session,
    reserve: { requestKey: requestKey.text, user: user.text, sku: sku.text, ttlMs: ttlMs ?? DEFAULT_TTL_MS },
    ...(until ? { until } : {}),
  };
}

function pausePoint(value: Word, fail: Fail): PausePoint {
  if (!(PAUSE_POINTS as readonly string[]).includes(value.text))
    fail(value.at, `unknown pause point "${value.text}"; choose one of: ${PAUSE_POINTS.join(', ')}`);
  return value.text as PausePoint;
}
