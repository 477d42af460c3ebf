/**
 * `--gate local|postgres|redis`, `--gate-failure closed|open`, `--gate-lease-ms MS` and the Redis URL
 * (`--redis-url`, or REDIS_URL): one GateChoice, every value checked. A Redis URL is read from the
 * environment as DATABASE_URL is, so instances started by `serve --instances` never carry it in argv.
 */
import { Errors } from '../errors.ts';
import {
  DEFAULT_LEASE_MS,
  FAILURE_MODES,
  type FailureMode,
  GATE_KINDS,
  type GateChoice,
  type GateKind,
} from '../gate/gate.ts';
import { boundedInteger, shown, single } from './cli-arguments.ts';

export interface GateArgs {
  gate?: unknown;
  'gate-failure'?: unknown;
  'gate-lease-ms'?: unknown;
  'redis-url'?: unknown;
}

function oneOf<T extends string>(name: string, value: unknown, allowed: readonly T[]): T | undefined {
  const text = single(name, value);
  if (text === undefined) return undefined;
  const found = allowed.find((a) => a === text);
  if (!found) throw Errors.badInput(`--${name} must be one of ${allowed.join(', ')}, got ${shown(text)}`);
  return found;
}

function redisUrlFrom(args: GateArgs): string | undefined {
  const given = single('redis-url', args['redis-url']) ?? process.env.REDIS_URL;
  if (!given) return undefined;
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw Errors.badInput('--redis-url (or REDIS_URL) is not a URL: give redis://HOST:PORT');
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw Errors.badInput(
      `--redis-url (or REDIS_URL) must start with redis:// or rediss://, got ${url.protocol}`,
    );
  }
  return given;
}

export function gateChoiceFrom(args: GateArgs): GateChoice {
  const kind: GateKind = oneOf('gate', args.gate, GATE_KINDS) ?? 'local';
  const failureMode: FailureMode | undefined = oneOf('gate-failure', args['gate-failure'], FAILURE_MODES);
  const leaseMs = boundedInteger('gate-lease-ms', args['gate-lease-ms'], 100, 3_600_000);
  const redisUrl = redisUrlFrom(args);
  if (kind === 'local' && (failureMode !== undefined || leaseMs !== undefined)) {
    throw Errors.badInput(
      `--${failureMode !== undefined ? 'gate-failure' : 'gate-lease-ms'} needs a shared gate: --gate postgres or redis`,
    );
  }
  if (kind === 'redis' && !redisUrl) {
    throw Errors.badInput('--gate redis needs --redis-url redis://HOST:PORT (or REDIS_URL)');
  }
  if (kind !== 'redis' && single('redis-url', args['redis-url']) !== undefined) {
    throw Errors.badInput('--redis-url needs --gate redis');
  }
  return {
    kind,
    failureMode: failureMode ?? 'closed',
    leaseMs: leaseMs ?? DEFAULT_LEASE_MS,
    ...(kind === 'redis' ? { redisUrl } : {}),
  };
}

/** The options, for a command's option table. */
export const GATE_OPTION_TEXT = {
  gate: 'the admission gate: local (one per process, default), or shared by every instance: postgres, redis',
  'gate-failure':
    "a shared gate's answer when its store is unreachable: closed (503, default) or open (the local gate)",
  'gate-lease-ms': `a shared permit's lease: a dead holder's permit is free again this long after its last renewal (${DEFAULT_LEASE_MS})`,
  'redis-url': 'with --gate redis: the Redis server, redis://HOST:PORT (or REDIS_URL)',
} as const;
