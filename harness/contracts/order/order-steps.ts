/**
 * The order contract's steps in an isolation spec (docs/interleavings.md), beside the engine's own SQL,
 * WAIT and RESUME:
 *
 *   ORDER <key> <user> <sku>:<qty>[,<sku>:<qty>…] [TTL <ms>] [UNTIL <pause point>]
 *   RELEASE <key> [UNTIL <pause point>]      EXPIRE [UNTIL <pause point>]
 *   BACKDATE <key>…      STATUS <key>      LINES <key>      REMAINING <sku>
 *
 * A step's body, split into words, becomes one of these or one line saying what is wrong with it. What
 * the interleaving engine does with a step (the design's call on the session, held at UNTIL) is the
 * engine's; this is only what the words mean.
 */
import {
  ORDER_PAUSE_POINTS,
  type OrderLine,
  type OrderPausePoint,
  type OrderRequest,
} from '../../../strategies/order/contract.ts';
import type { OrderCall } from './order-history.ts';

/** The TTL of an ORDER step that gives none: long enough that nothing expires unless a step backdates it. */
export const DEFAULT_STEP_TTL_MS = 60_000;

export type OrderStep =
  | { verb: 'ORDER'; request: OrderRequest; until?: OrderPausePoint }
  | { verb: 'RELEASE'; requestKey: string; until?: OrderPausePoint }
  | { verb: 'EXPIRE'; until?: OrderPausePoint }
  | { verb: 'BACKDATE'; requestKeys: string[] }
  | { verb: 'STATUS' | 'LINES'; requestKey: string }
  | { verb: 'REMAINING'; sku: string };

export const ORDER_VERBS = [
  'ORDER',
  'RELEASE',
  'EXPIRE',
  'BACKDATE',
  'STATUS',
  'LINES',
  'REMAINING',
] as const;

/** `sku:qty,sku:qty`: the quantities as written (a malformed one is the design's to refuse: BAD_REQUEST). */
function cartOf(word: string): OrderLine[] {
  return word.split(',').map((line) => {
    const at = line.lastIndexOf(':');
    if (at <= 0) throw new Error(`a cart line is <sku>:<qty>, got "${line}"`);
    return { sku: line.slice(0, at), qty: Number(line.slice(at + 1)) };
  });
}

function pausePointOf(word: string | undefined): OrderPausePoint {
  const point = ORDER_PAUSE_POINTS.find((p) => p === word);
  if (!point) throw new Error(`UNTIL needs one of ${ORDER_PAUSE_POINTS.join(', ')}, got "${word ?? ''}"`);
  return point;
}

/** The options after a step's arguments: each of `allowed`, once, with its value. */
function optionsOf(words: readonly string[], allowed: readonly string[]): Map<string, string> {
  const options = new Map<string, string>();
  for (let o = 0; o < words.length; o += 2) {
    const keyword = (words[o] ?? '').toUpperCase();
    const value = words[o + 1];
    if (!allowed.includes(keyword))
      throw new Error(`unexpected "${words[o]}"; expected ${allowed.join(' or ')}`);
    if (options.has(keyword)) throw new Error(`${keyword} is given twice`);
    if (value === undefined) throw new Error(`${keyword} needs a value`);
    options.set(keyword, value);
  }
  return options;
}

function untilOf(options: ReadonlyMap<string, string>): { until?: OrderPausePoint } {
  const until = options.get('UNTIL');
  return until === undefined ? {} : { until: pausePointOf(until) };
}

function orderStep(args: readonly string[]): OrderStep {
  const [requestKey, user, lines, ...rest] = args;
  if (!requestKey || !user || !lines) throw new Error('ORDER needs a key, a user and a cart (<sku>:<qty>,…)');
  const options = optionsOf(rest, ['TTL', 'UNTIL']);
  const ttl = options.get('TTL');
  if (ttl !== undefined && !/^[0-9]+$/.test(ttl))
    throw new Error(`TTL must be a whole number of ms, got "${ttl}"`);
  const ttlMs = ttl === undefined ? DEFAULT_STEP_TTL_MS : Number(ttl);
  return { verb: 'ORDER', request: { requestKey, user, lines: cartOf(lines), ttlMs }, ...untilOf(options) };
}

/** One step body's words (the verb first, in any case) as an order step; throws one line when it is not one. */
export function parseOrderStep(words: readonly string[]): OrderStep {
  const [first = '', ...args] = words;
  const verb = first.toUpperCase();
  const one = (what: string) => {
    if (args.length !== 1 || !args[0]) throw new Error(`${verb} needs exactly one ${what}`);
    return args[0];
  };
  switch (verb) {
    case 'ORDER':
      return orderStep(args);
    case 'RELEASE': {
      const [requestKey, ...rest] = args;
      if (!requestKey) throw new Error('RELEASE needs a key');
      return { verb, requestKey, ...untilOf(optionsOf(rest, ['UNTIL'])) };
    }
    case 'EXPIRE':
      return { verb, ...untilOf(optionsOf(args, ['UNTIL'])) };
    case 'BACKDATE':
      if (args.length === 0) throw new Error('BACKDATE needs at least one key');
      return { verb, requestKeys: [...args] };
    case 'STATUS':
    case 'LINES':
      return { verb, requestKey: one('key') };
    case 'REMAINING':
      return { verb, sku: one('sku') };
    default:
      throw new Error(`"${first}" is no order step; expected one of ${ORDER_VERBS.join(', ')}`);
  }
}

/** The contract call a step makes, as a history records it. */
export function orderCallOf(step: OrderStep): OrderCall {
  switch (step.verb) {
    case 'ORDER':
      return { op: 'order', request: step.request };
    case 'RELEASE':
      return { op: 'release', requestKey: step.requestKey };
    case 'EXPIRE':
      return { op: 'expire' };
    case 'BACKDATE':
      return { op: 'backdate', requestKeys: step.requestKeys };
    case 'STATUS':
      return { op: 'status', requestKey: step.requestKey };
    case 'LINES':
      return { op: 'lines', requestKey: step.requestKey };
    case 'REMAINING':
      return { op: 'remaining', sku: step.sku };
  }
}
