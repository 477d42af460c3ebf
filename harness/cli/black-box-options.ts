/**
 * `run --target` options, checked before any case: each base URL must be http(s) and answer the API (an
 * unknown key's lookup is a 404 `status=NOT_FOUND`), or the run stops with one line (exit 2). Which way
 * each case loads its stock is settled here too: the user's `--target-setup` command, else POST
 * /admin/reset when every node has it on (a body that is no stock list is a 400 there, and changes
 * nothing), else none.
 */
import { CHECKS, type CheckName } from '../../strategies/contract.ts';
import { exchange, NoAnswer, shownAnswer } from '../contracts/reservation/blackbox/api-exchange.ts';
import type { ExchangeLog } from '../contracts/reservation/blackbox/exchange-log.ts';
import type { TargetSettings } from '../contracts/reservation/blackbox/http-black-box.ts';
import { findScenario } from '../contracts/reservation/case/index.ts';
import { Errors, oneLine } from '../errors.ts';
import { shown } from './cli-arguments.ts';
import { choice, parsedList, text } from './option-types.ts';

/**
 * Why an option of `run` means nothing with --target: given with it, it is refused rather than ignored
 * (each such option declares `excludes: { target: … }` with this reason).
 */
const NOT_WITH_TARGET = {
  strategy: 'a target is the one system under test',
  isolation: "a target's transactions are its own",
  durability: "a target's commits are its own",
  param: 'a target has no design knobs the suite can turn',
  'database-url': 'a target run has no database of its own',
  postgres: 'a target run has no database of its own',
  keep: 'a target run keeps nothing',
  threads: "a target's clients wait on sockets on the main thread",
  jobs: "a target's cases share its one state, so they run one after the other",
} as const;

/** `excludes` of an option of `run` that a target has no use for. */
export const notWithTarget = (name: keyof typeof NOT_WITH_TARGET) => ({
  excludes: { target: NOT_WITH_TARGET[name] },
});

/** A base URL, checked: http(s), no credentials, query or fragment; without a trailing slash. */
function readBaseUrl(value: string, label: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw Errors.badInput(`${label} must be http:// or https:// base URLs, got ${shown(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw Errors.badInput(`${label} must be http:// or https:// base URLs, got ${shown(value)}`);
  }
  if (url.username || url.password)
    throw Errors.badInput(`${label} ${shown(url.host)}: no credentials in the URL`);
  if (url.search || url.hash)
    throw Errors.badInput(`${label} ${shown(value)}: a base URL has no query or fragment`);
  return url.toString().replace(/\/+$/, '');
}

interface CaughtBy {
  scenario: string;
  check: CheckName;
}

function readCaughtBy(item: string, label: string): CaughtBy {
  const [scenario, check, ...rest] = item.split(':');
  if (!scenario || !check || rest.length > 0) {
    throw Errors.badInput(
      `${label} takes scenario:check pairs (e.g. contention:oversold), got ${shown(item)}`,
    );
  }
  findScenario(scenario);
  if (!(CHECKS as readonly string[]).includes(check)) {
    throw Errors.badInput(`${label} ${shown(item)}: unknown check; choose from: ${CHECKS.join(', ')}`);
  }
  return { scenario, check: check as CheckName };
}

const needsTarget = { needs: [{ anyOf: ['target'] }] };

/** The options of `run --target`, declared once. */
export const TARGET_OPTIONS = {
  target: parsedList(
    'drive a service speaking the reservation API (docs/http-api.md) instead of strategies: base URLs, one per node',
    { form: 'URL,…', several: 'list', read: readBaseUrl },
  ),
  'target-setup': text('command run before each case to load its stock (RESERVEBENCH_STOCK, JSON)', {
    form: "'cmd'",
    blank: 'must be a command',
    absent: 'POST /admin/reset',
    ...needsTarget,
  }),
  'target-restart': text('command that restarts node RESERVEBENCH_NODE (1-based)', {
    form: "'cmd'",
    blank: 'must be a command',
    absent: 'scenarios that restart a node are n/a',
    ...needsTarget,
  }),
  'target-expect': choice(
    'hold, or violate: the target is a known-unsafe service, caught by --caught-by',
    ['hold', 'violate'],
    { default: 'hold', ...needsTarget },
  ),
  'caught-by': parsedList(
    'with --target-expect violate: scenario:check pairs that must catch it (contention:oversold)',
    { form: 'SCENARIO:CHECK,…', several: 'list', read: readCaughtBy, ...needsTarget },
  ),
};

/** The target options as resolved (resolve-options.ts), with the timeout of each request. */
export interface TargetArgs {
  target: readonly string[];
  'target-setup': string | undefined;
  'target-restart': string | undefined;
  'target-expect': 'hold' | 'violate';
  'caught-by': readonly CaughtBy[];
  'timeout-ms': number;
}

/**
 * The settings the options give, before anything is asked of the service; undefined without --target. What
 * a target cannot go with, and what needs a target, the declarations refused already.
 */
export function targetArgs(
  args: TargetArgs,
  label: (name: string) => string,
): (Omit<TargetSettings, 'setup'> & { setupCommand?: string }) | undefined {
  const urls = args.target;
  if (urls.length === 0) return undefined;
  const twice = urls.find((u, i) => urls.indexOf(u) !== i);
  if (twice) throw Errors.badInput(`${label('target')} names ${shown(twice)} twice`);
  const expect = args['target-expect'];
  const caughtBy: Record<string, CheckName[]> = {};
  for (const { scenario, check } of args['caught-by'])
    caughtBy[scenario] = [...(caughtBy[scenario] ?? []), check];
  const caught = args['caught-by'].length > 0;
  if (expect === 'violate' && !caught) {
    throw Errors.badInput(
      `${label('target-expect')} violate needs --caught-by scenario:check, the checks that must catch it`,
    );
  }
  if (expect === 'hold' && caught)
    throw Errors.badInput(`${label('caught-by')} goes with --target-expect violate`);
  const setupCommand = args['target-setup'];
  const restart = args['target-restart'];
  return {
    urls: [...urls],
    expect,
    timeoutMs: args['timeout-ms'],
    ...(caught ? { caughtBy } : {}),
    ...(setupCommand !== undefined ? { setupCommand } : {}),
    ...(restart !== undefined ? { restart } : {}),
  };
}

/** How long a probe may take before the node counts as unreachable. */
const PROBE_MS = 5_000;

/**
 * Asks every node whether it speaks the API, then how stock can be loaded; one line and exit 2 when a node
 * cannot be reached or does not answer as the API says.
 */
export async function preflightTarget(
  given: Omit<TargetSettings, 'setup'> & { setupCommand?: string },
  log: ExchangeLog,
): Promise<TargetSettings> {
  const { setupCommand, ...rest } = given;
  const ask = async (
    base: string,
    endpoint: 'GET /reservations/{request_key}' | 'POST /admin/reset',
    path: string,
    body?: string,
  ) => {
    try {
      return await exchange(log, {
        endpoint,
        url: `${base}${path}`,
        method: body === undefined ? 'GET' : 'POST',
        ...(body !== undefined ? { body } : {}),
        timeoutMs: PROBE_MS,
        retry503: false,
      });
    } catch (error: unknown) {
      throw Errors.badInput(
        `--target ${base}: unreachable: ${error instanceof NoAnswer ? error.why : oneLine(error)}`,
      );
    }
  };
  for (const url of given.urls) {
    const answer = await ask(
      url,
      'GET /reservations/{request_key}',
      '/reservations/reservebench-probe-unknown-key',
    );
    const speaks =
      (answer.code === 404 && answer.fields.status === 'NOT_FOUND') ||
      (answer.code === 503 && answer.fields.outcome !== undefined);
    if (!speaks) {
      throw Errors.badInput(
        `--target ${url} does not speak the reservation API (docs/http-api.md): GET /reservations/{key} of an unknown key answered ${shownAnswer(answer)}, not 404 status=NOT_FOUND`,
      );
    }
  }
  if (setupCommand !== undefined) return { ...rest, setup: { kind: 'command', command: setupCommand } };
  let resets = 0;
  for (const url of given.urls) {
    // Not a stock list: a node with the reset on refuses it (400) and changes nothing.
    const answer = await ask(url, 'POST /admin/reset', '/admin/reset', '{}');
    if (answer.code === 400) resets += 1;
    else if (![403, 404, 405].includes(answer.code)) {
      throw Errors.badInput(
        `--target ${url}: POST /admin/reset with a body that is no stock list answered ${shownAnswer(answer)}; the API says 400 (reset on) or 403/404 (off)`,
      );
    }
  }
  return { ...rest, setup: resets === given.urls.length ? { kind: 'reset' } : { kind: 'none' } };
}
