/**
 * A step body of the spec extension as words, and what every verb's parser reads of them: a node
 * (`ON <i>/<n>`, `RESTART <i>/<n>`), a whole number of milliseconds, a verb's one argument, a pause point.
 * Every error is one line at the faulty word (`file:line:column: message`, exit 2).
 */
import type { NodeRef } from './permutation.ts';
import type { Fail } from './spec-tokens.ts';

/** A word of a step body, with its offset in the source. */
export interface Word {
  text: string;
  at: number;
}

/** A step body as words; a missing word is reported at `end`. */
export interface StepWords {
  name: string;
  session: string;
  /** The verb first, as written. */
  words: Word[];
  end: number;
  fail: Fail;
  /** The step's `ON <i>/<n>`, taken off the end of `words`. */
  on?: NodeRef;
}

/** `i/n`: node i of n, 1 ≤ i ≤ n. */
export function nodeRef(value: Word, keyword: string, fail: Fail): NodeRef {
  const [, i, n] = /^([0-9]+)\/([0-9]+)$/.exec(value.text) ?? [];
  const node = Number(i);
  const of = Number(n);
  if (!i || !Number.isSafeInteger(node) || !Number.isSafeInteger(of) || node < 1 || node > of)
    fail(value.at, `${keyword} needs <i>/<n>, node i of n counted from 1, got "${value.text}"`);
  return { node, of };
}

/** A whole number of milliseconds, at least 1. */
export function wholeMs(value: Word, keyword: string, fail: Fail): number {
  const ms = Number(value.text);
  if (!/^[0-9]+$/.test(value.text) || !Number.isSafeInteger(ms) || ms < 1)
    fail(value.at, `${keyword} must be a whole number of milliseconds, got "${value.text}"`);
  return ms;
}

/** The verb's one argument; nothing after it. */
export function onlyArgument(body: StepWords, what: string): Word {
  const { words, end } = body;
  const fail: Fail = body.fail;
  const [verb, value, extra] = words;
  if (!value) fail(end, `${verb?.text} needs ${what}`);
  if (extra) fail(extra.at, `unexpected "${extra.text}" after ${verb?.text} ${value.text}`);
  return value;
}

/** ON given before the step's other words: it must come last. */
export function failIfOn(word: Word, fail: Fail): void {
  if (word.text.toUpperCase() === 'ON') fail(word.at, 'ON <i>/<n> comes last in the step');
}

/** A pause point of `points`; `unknown` says how the error names it when it is none of them. */
export function pausePointOf<P extends string>(
  value: Word,
  points: readonly P[],
  fail: Fail,
  unknown = 'unknown pause point',
): P {
  if (!(points as readonly string[]).includes(value.text))
    fail(value.at, `${unknown} "${value.text}"; choose one of: ${points.join(', ')}`);
  return value.text as P;
}
