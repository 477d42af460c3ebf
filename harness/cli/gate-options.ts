/**
 * `--gate local|postgres|redis`, `--gate-failure closed|open`, `--gate-lease-ms MS` and the Redis URL
 * (`--redis-url`, or REDIS_URL), declared once (command-definition.ts), and read into one GateChoice. A
 * Redis URL is read from the environment as DATABASE_URL is, so instances started by `serve --instances`
 * never carry it in argv.
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
import { shown } from './cli-arguments.ts';
import { choice, integer, parsed } from './option-types.ts';

/** A Redis URL: redis:// or rediss://. */
function readRedisUrl(given: string, label: string): string {
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw Errors.badInput(`${label} is not a URL: give redis://HOST:PORT`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw Errors.badInput(`${label} must start with redis:// or rediss://, got ${url.protocol}`);
  }
  return given;
}

export const GATE_OPTIONS = {
  gate: choice('the admission gate: one per process, or shared by every instance', GATE_KINDS, {
    default: 'local',
    refuse: (label, text) => `${label} must be one of ${GATE_KINDS.join(', ')}, got ${shown(text)}`,
  }),
  'gate-failure': choice(
    "a shared gate's answer when its store is unreachable: closed (503) or open (the local gate)",
    FAILURE_MODES,
    { absent: 'closed' },
  ),
  'gate-lease-ms': integer(
    "a shared permit's lease: a dead holder's permit is free again this long after its last renewal",
    { min: 100, max: 3_600_000, absent: String(DEFAULT_LEASE_MS) },
  ),
  'redis-url': parsed('with --gate redis: the Redis server, redis://HOST:PORT', {
    form: 'URL',
    absent: 'REDIS_URL',
    read: (given: string, label: string) => readRedisUrl(given, `${label} (or REDIS_URL)`),
  }),
};

export interface GateArgs {
  gate: GateKind;
  'gate-failure': FailureMode | undefined;
  'gate-lease-ms': number | undefined;
  'redis-url': string | undefined;
}

/** The gate the options choose; what needs a shared gate, or Redis, is refused without it. */
export function gateChoiceFrom(args: GateArgs, label: (name: string) => string): GateChoice {
  const kind = args.gate;
  const failureMode = args['gate-failure'];
  const leaseMs = args['gate-lease-ms'];
  const fromEnvironment = process.env.REDIS_URL;
  const redisUrl =
    args['redis-url'] ??
    (fromEnvironment ? readRedisUrl(fromEnvironment, '--redis-url (or REDIS_URL)') : undefined);
  if (kind === 'local' && (failureMode !== undefined || leaseMs !== undefined)) {
    const name = failureMode !== undefined ? 'gate-failure' : 'gate-lease-ms';
    throw Errors.badInput(`${label(name)} needs a shared gate: --gate postgres or redis`);
  }
  if (kind === 'redis' && !redisUrl) {
    throw Errors.badInput(`${label('gate')} redis needs --redis-url redis://HOST:PORT (or REDIS_URL)`);
  }
  if (kind !== 'redis' && args['redis-url'] !== undefined) {
    throw Errors.badInput(`${label('redis-url')} needs --gate redis`);
  }
  return {
    kind,
    failureMode: failureMode ?? 'closed',
    leaseMs: leaseMs ?? DEFAULT_LEASE_MS,
    ...(kind === 'redis' ? { redisUrl } : {}),
  };
}
