/**
 * `run --target` options, checked before any case: each base URL must be http(s) and answer the API (an
 * unknown key's lookup is a 404 `status=NOT_FOUND`), or the run stops with one line (exit 2). Which way
 * each case loads its stock is settled here too: the user's `--target-setup` command, else POST
 * /admin/reset when every node has it on (a body that is no stock list is a 400 there, and changes
 * nothing), else none.
 */
import { CHECKS, type CheckName } from '../../strategies/contract.ts';
import { exchange, NoAnswer, shownAnswer } from '../blackbox/api-exchange.ts';
import type { TargetSettings } from '../blackbox/http-black-box.ts';
import { Errors, oneLine } from '../errors.ts';
import { findScenario } from '../scenario/index.ts';
import type { ExchangeLog } from '../verdict/exchange-log.ts';
import { list, shown, single } from './cli-arguments.ts';

export interface TargetArgs {
  target?: unknown;
  'target-setup'?: unknown;
  'target-restart'?: unknown;
  'target-expect'?: unknown;
  'caught-by'?: unknown;
}

/** Options of `run` a target run has no use for: given with --target, they are refused rather than ignored. */
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

/** A base URL, checked: http(s), no credentials, query or fragment; without a trailing slash. */
function baseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw Errors.badInput(`--target must be http:// or https:// base URLs, got ${shown(text)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw Errors.badInput(`--target must be http:// or https:// base URLs, got ${shown(text)}`);
  }
  if (url.username || url.password)
    throw Errors.badInput(`--target ${shown(url.host)}: no credentials in the URL`);
  if (url.search || url.hash)
    throw Errors.badInput(`--target ${shown(text)}: a base URL has no query or fragment`);
  return url.toString().replace(/\/+$/, '');
}

function caughtByFrom(value: unknown): Record<string, CheckName[]> | undefined {
  const items = list('caught-by', value);
  if (items.length === 0) return undefined;
  const caughtBy: Record<string, CheckName[]> = {};
  for (const item of items) {
    const [scenario, check, ...rest] = item.split(':');
    if (!scenario || !check || rest.length > 0) {
      throw Errors.badInput(
        `--caught-by takes scenario:check pairs (e.g. contention:oversold), got ${shown(item)}`,
      );
    }
    findScenario(scenario);
    if (!(CHECKS as readonly string[]).includes(check)) {
      throw Errors.badInput(`--caught-by ${shown(item)}: unknown check; choose from: ${CHECKS.join(', ')}`);
    }
    caughtBy[scenario] = [...(caughtBy[scenario] ?? []), check as CheckName];
  }
  return caughtBy;
}

/** The settings the arguments give, before anything is asked of the service; undefined without --target. */
export function targetArgs(
  args: TargetArgs & Record<keyof typeof NOT_WITH_TARGET, unknown>,
  timeoutMs: number,
): (Omit<TargetSettings, 'setup'> & { setupCommand?: string }) | undefined {
  const given = list('target', args.target);
  const others = ['target-setup', 'target-restart', 'target-expect', 'caught-by'] as const;
  if (given.length === 0) {
    const stray = others.find((name) => args[name] !== undefined);
    if (stray) throw Errors.badInput(`--${stray} needs --target`);
    return undefined;
  }
  for (const [name, why] of Object.entries(NOT_WITH_TARGET)) {
    const value = args[name as keyof typeof NOT_WITH_TARGET];
    if (value !== undefined && value !== false)
      throw Errors.badInput(`--${name} cannot go with --target: ${why}`);
  }
  const urls = given.map(baseUrl);
  const twice = urls.find((u, i) => urls.indexOf(u) !== i);
  if (twice) throw Errors.badInput(`--target names ${shown(twice)} twice`);
  const command = (name: 'target-setup' | 'target-restart') => {
    const text = single(name, args[name]);
    if (text !== undefined && text.trim() === '')
      throw Errors.badInput(`--${name} must be a command, got ""`);
    return text;
  };
  const expectText = single('target-expect', args['target-expect']) ?? 'hold';
  if (expectText !== 'hold' && expectText !== 'violate') {
    throw Errors.badInput(`--target-expect must be hold or violate, got ${shown(expectText)}`);
  }
  const caughtBy = caughtByFrom(args['caught-by']);
  if (expectText === 'violate' && !caughtBy) {
    throw Errors.badInput(
      '--target-expect violate needs --caught-by scenario:check, the checks that must catch it',
    );
  }
  if (expectText === 'hold' && caughtBy)
    throw Errors.badInput('--caught-by goes with --target-expect violate');
  const setupCommand = command('target-setup');
  const restart = command('target-restart');
  return {
    urls,
    expect: expectText,
    timeoutMs,
    ...(caughtBy ? { caughtBy } : {}),
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
