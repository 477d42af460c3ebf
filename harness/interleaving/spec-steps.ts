/**
 * The spec extension's grammar (see ./spec-parser.ts): a step body that starts with one of these verbs is
 * a step of the engine's own, not SQL; one that starts with a verb of the contract the spec is parsed for
 * (its SpecVerbs: each contract's verbs file gives its grammar) is that contract's step. Keywords are
 * case-insensitive; values are taken as written, in double quotes where they hold a space
 * (`RESERVE " k1 " u1 sku-a`, `""` for a quote).
 *
 *   RESUME COMMIT | RESUME ROLLBACK | RESUME KILL
 *   WAIT <ms>
 *   RESTART <i>/<n>
 *   FAILOVER
 *   <a contract's verb> … [UNTIL <pause point>] [ON <i>/<n>]
 *
 * WAIT completes once the database clock (clock_timestamp()) has passed <ms> from the step's start.
 * FAILOVER (a program run on a cluster) fails the primary over to its standby with the next step in
 * flight (the explorer side of the contract says how); a spec that has one runs only there.
 * RESTART makes node i's later operations run in a new incarnation (a restarted process, its memory
 * gone). RESUME KILL terminates the paused operation's backend as a `kill -9` of its process would,
 * restarts its node, and the session goes on on a new connection; the step's result is an error marked
 * `killed`, an unknown ending. `ON <i>/<n>` (node i of n, counted from 1; default 1/1) ends a contract
 * step whose operation runs on a node; every node a spec names is one of the same n.
 */
import type { NodeRef, Step } from './permutation.ts';
import type { Fail, Token } from './spec-tokens.ts';
import type { SpecVerbs } from './spec-verbs.ts';
import { nodeRef, onlyArgument, type StepWords, type Word, wholeMs } from './spec-words.ts';

const ENGINE_VERBS = new Set(['RESUME', 'WAIT', 'RESTART', 'FAILOVER']);

/** A word of a step body: a run of non-blanks, or a double-quoted name (`""` inside is one quote). */
const WORD = /"((?:[^"]|"")*)"|\S+/g;

/** The engine's step a body describes (its own, or a contract's of `verbs`); undefined for SQL. */
export function specStep(
  name: string,
  session: string,
  body: Extract<Token, { kind: 'block' }>,
  fail: Fail,
  verbs: readonly SpecVerbs[],
): Step | undefined {
  const words = [...body.text.matchAll(WORD)].map((m) => ({
    text: m[1] === undefined ? m[0] : m[1].replaceAll('""', '"'),
    at: body.bodyAt + (m.index ?? 0),
  }));
  const verb = words[0]?.text.toUpperCase() ?? '';
  const contract = verbs.find((v) => v.names.includes(verb));
  if (!contract && !ENGINE_VERBS.has(verb)) return undefined;
  const end = body.bodyAt + body.text.length;
  const on = trailingNode(words, verb, fail, verbs);
  const stepWords: StepWords = { name, session, words, end, fail, ...(on ? { on } : {}) };
  return contract ? contract.parse(stepWords) : engineStep(verb, stepWords);
}

function engineStep(verb: string, body: StepWords): Step {
  switch (verb) {
    case 'RESUME':
      return resumeStep(body);
    case 'WAIT':
      return {
        name: body.name,
        session: body.session,
        waitMs: wholeMs(onlyArgument(body, 'a number of milliseconds'), 'WAIT', body.fail),
      };
    case 'FAILOVER': {
      const extra = body.words[1];
      if (extra) body.fail(extra.at, `unexpected "${extra.text}" after FAILOVER`);
      return { name: body.name, session: body.session, failover: true };
    }
    default:
      return {
        name: body.name,
        session: body.session,
        restart: nodeRef(onlyArgument(body, '<i>/<n>'), 'RESTART', body.fail),
      };
  }
}

/** Takes `ON <i>/<n>` off the end of `words`, for the verbs that run on a node. */
function trailingNode(
  words: Word[],
  verb: string,
  fail: Fail,
  verbs: readonly SpecVerbs[],
): NodeRef | undefined {
  const on = words.at(-2);
  if (on?.text.toUpperCase() !== 'ON') return undefined;
  const onANode = verbs.flatMap((v) => v.onANode);
  if (!onANode.includes(verb)) {
    const which = onANode.length > 0 ? `ON <i>/<n> ends a ${orList(onANode)}` : 'no step runs on a node';
    fail(on.at, `${verb} runs on no node; ${which}`);
  }
  const value = words.at(-1) as Word;
  words.splice(-2, 2);
  return nodeRef(value, 'ON', fail);
}

/** `A, B or C`. */
function orList(items: readonly string[]): string {
  return items.length > 1 ? `${items.slice(0, -1).join(', ')} or ${items.at(-1)}` : (items[0] ?? '');
}

/** RESUME COMMIT / RESUME ROLLBACK / RESUME KILL. */
function resumeStep(body: StepWords): Step {
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
