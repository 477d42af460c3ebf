/**
 * The yardstick's pure parts: its arguments, the pgbench script, the paired ratio with its interval, the
 * profile of where the time went, and the text it prints. scripts/pgbench-yardstick.ts does the running.
 */
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { median } from 'simple-statistics';

/** A wrong argument: the script prints the message as one line and exits 2. */
export class YardstickInputError extends Error {
  override name = 'YardstickInputError';
}

export interface YardstickSettings {
  clients: number[];
  warmupMs: number;
  durationMs: number;
  trials: number;
  /** The suite's worker threads (the bench's default, one per core, when absent); pgbench gets as many. */
  threads?: number;
  databaseUrl?: string;
  /**
   * How both sides reach the embedded server: its Unix-domain socket (the default, as the bench's clients
   * connect) or loopback TCP; with `databaseUrl`, as that URL says (then this is absent).
   */
  transport?: Transport;
  /** Print the JSON document instead of the tables. */
  json: boolean;
  /** Also write the JSON document to this file (with either output). */
  out?: string;
}

export const TRANSPORTS = ['socket', 'tcp'] as const;
export type Transport = (typeof TRANSPORTS)[number];

export const YARDSTICK_USAGE =
  'npm run yardstick -- [--clients 1,4,16,64,150] [--trials 3] [--duration-ms 5000] [--warmup-ms 1000] [--threads N] [--transport socket|tcp | --database-url URL] [--json] [--out FILE]';

const wholeIn = (text: string | undefined, low: number, high: number): number | undefined => {
  if (text === undefined || !/^\d+$/.test(text.trim())) return undefined;
  const n = Number(text);
  return n >= low && n <= high ? n : undefined;
};

/** Reads the command line; every mistake is a YardstickInputError with one line saying what is accepted. */
export function parseYardstickArgs(argv: readonly string[]): YardstickSettings {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        clients: { type: 'string', default: '1,4,16,64,150' },
        trials: { type: 'string', default: '3' },
        'duration-ms': { type: 'string', default: '5000' },
        'warmup-ms': { type: 'string', default: '1000' },
        threads: { type: 'string' },
        'database-url': { type: 'string' },
        transport: { type: 'string' },
        json: { type: 'boolean', default: false },
        out: { type: 'string' },
      },
    }));
  } catch (error: unknown) {
    const message = (error instanceof Error ? error.message : String(error))
      .split('\n')[0]
      ?.replace(/\.$/, '');
    throw new YardstickInputError(`${message}; usage: ${YARDSTICK_USAGE}`);
  }
  const text = (name: string) => values[name] as string | undefined;
  const clients = (text('clients') ?? '').split(',').map((c) => wholeIn(c, 1, 250));
  if (clients.length === 0 || clients.some((c) => c === undefined))
    throw new YardstickInputError('--clients takes whole numbers 1–250, comma-separated (e.g. 1,4,16,64)');
  if (new Set(clients).size !== clients.length)
    throw new YardstickInputError('--clients names a client count twice');
  const trials = wholeIn(text('trials'), 1, 100);
  if (trials === undefined) throw new YardstickInputError('--trials takes a whole number 1–100');
  const durationMs = wholeIn(text('duration-ms'), 1000, 3_600_000);
  if (durationMs === undefined)
    throw new YardstickInputError('--duration-ms takes whole milliseconds, at least 1000');
  const warmupMs = wholeIn(text('warmup-ms'), 0, 600_000);
  if (warmupMs === undefined)
    throw new YardstickInputError('--warmup-ms takes whole milliseconds, 0 or more');
  const threadsText = text('threads');
  const threads = threadsText === undefined ? undefined : wholeIn(threadsText, 1, 64);
  if (threadsText !== undefined && threads === undefined)
    throw new YardstickInputError('--threads takes a whole number 1–64');
  const databaseUrl = text('database-url');
  const transport = text('transport');
  if (transport !== undefined && databaseUrl !== undefined)
    throw new YardstickInputError(
      '--transport is for the embedded server; --database-url connects as its URL says',
    );
  if (transport !== undefined && !TRANSPORTS.includes(transport as Transport))
    throw new YardstickInputError('--transport takes socket or tcp');
  const out = text('out');
  if (out !== undefined && out.trim() === '') throw new YardstickInputError('--out takes a file path');
  return {
    clients: clients as number[],
    warmupMs,
    durationMs,
    trials,
    threads,
    ...(databaseUrl !== undefined ? { databaseUrl } : { transport: (transport ?? 'socket') as Transport }),
    json: values.json === true,
    ...(out !== undefined ? { out } : {}),
  };
}

/** The suite's side as the report names it: its driver, the driver's version, and how it reaches the server. */
export interface SuiteDriver {
  client: 'node-postgres';
  version: string;
  transport: 'unix socket' | 'loopback tcp' | 'database url';
}

export function suiteDriver(settings: Pick<YardstickSettings, 'transport'>): SuiteDriver {
  const { version } = createRequire(import.meta.url)('pg/package.json') as { version: string };
  const transport =
    settings.transport === 'socket'
      ? 'unix socket'
      : settings.transport === 'tcp'
        ? 'loopback tcp'
        : 'database url';
  return { client: 'node-postgres', version, transport };
}

const TRANSPORT_WORDS: Record<SuiteDriver['transport'], string> = {
  'unix socket': "the embedded server's Unix socket",
  'loopback tcp': 'loopback TCP to the embedded server',
  'database url': '--database-url',
};

/**
 * hot-row's reserve when it takes a unit (strategies/hot-row.ts), round trip for round trip: BEGIN and the
 * claim in one batch with one Sync (`\startpipeline … \endpipeline`, as strategies/begin-with.ts sends
 * them), the conditional decrement, COMMIT; with the suite's key shapes (`bench-<client>-<n>`, a
 * per-client counter that starts at `-D n=0`), the sku and the ttl as parameters (`-D sku=… -D ttl=60000`).
 * Under `-M prepared` pgbench prepares every statement once per connection, as node-postgres does with
 * hot-row's named statements.
 */
export const PGBENCH_SCRIPT = `\\set n :n + 1
\\startpipeline
BEGIN;
INSERT INTO reservation (request_key, user_id, sku, status, expires_at)
  VALUES ('bench-' || :client_id || '-' || :n, 'bench-user-' || :client_id || '-' || :n, :sku, 'HELD',
          now() + make_interval(secs => :ttl / 1000.0))
  ON CONFLICT (request_key) DO NOTHING;
\\endpipeline
UPDATE sku_stock SET available = available - 1 WHERE sku = :sku AND available > 0;
COMMIT;
`;

export interface Interval {
  low: number;
  high: number;
  /** The probability that the interval holds the true median: exact, whatever the distribution. */
  confidence: number;
}

/** P(X ≤ k) for X ~ Binomial(n, ½). */
function binomialHalfCdf(n: number, k: number): number {
  let term = 0.5 ** n;
  let sum = 0;
  for (let i = 0; i <= k; i++) {
    sum += term;
    term = (term * (n - i)) / (i + 1);
  }
  return sum;
}

/**
 * The distribution-free interval of a median (the sign-test interval): between the k-th lowest and the
 * k-th highest value, with the largest k whose coverage 1 − 2·P(Binomial(n, ½) < k) is still at least
 * `level`. It assumes only independent values with a common median. Below 6 values no such interval reaches
 * 95%; then it is the lowest to the highest value, with the coverage it has (75% for 3, 94% for 5).
 */
export function medianInterval(values: readonly number[], level = 0.95): Interval | null {
  if (values.length < 2) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const coverage = (k: number) => 1 - 2 * binomialHalfCdf(n, k - 1);
  let k = 1;
  while (k + 1 <= Math.floor((n + 1) / 2) && coverage(k + 1) >= level) k += 1;
  return { low: sorted[k - 1] as number, high: sorted[n - k] as number, confidence: coverage(k) };
}

/** What one side measured in one trial's window. */
export interface SideTrial {
  /** Reservations committed per second in the measured window. */
  throughput: number;
  /** CPU of the load generator (pgbench; the suite's node process with its worker threads), in cores. */
  driverCores: number;
  /** CPU of the server's processes serving it (its backends, the auxiliary processes); null: unreadable. */
  serverCores: number | null;
  /** Mean backends waiting on a lock (pg_stat_activity, every 20 ms), and the share of samples with any. */
  lockWaiters: number;
  lockShare: number;
}

export interface PairedTrial {
  trial: number;
  clients: number;
  /** Which side ran first in this trial (the order alternates from trial to trial). */
  first: 'pgbench' | 'suite';
  pgbench: SideTrial;
  /** Null when the suite's trial failed (its audit, or an error): it has no ratio. */
  suite: SideTrial | null;
}

export interface SideProfile {
  throughput: number;
  driverCores: number;
  /** CPU per transaction, µs: cores ÷ throughput. */
  driverUsPerTx: number;
  serverCores: number | null;
  serverUsPerTx: number | null;
  lockWaiters: number;
  lockShare: number;
}

export interface ClientsSummary {
  clients: number;
  /** Median throughput of each side over its trials. */
  pgbench: number;
  suite: number | null;
  /** Median of the per-trial ratios suite ÷ pgbench, and its interval (null below 2 paired trials). */
  ratio: number | null;
  interval: Interval | null;
  ratios: number[];
  /** Medians over the trials of each measure. */
  profile: { pgbench: SideProfile; suite: SideProfile | null };
  trials: PairedTrial[];
}

const hundredths = (x: number) => Math.round(x * 100) / 100;
const tenths = (x: number) => Math.round(x * 10) / 10;

function profileOf(sides: readonly SideTrial[]): SideProfile {
  const mid = (value: (s: SideTrial) => number) => median(sides.map(value));
  const throughput = mid((s) => s.throughput);
  const perTx = (cores: number) => (throughput > 0 ? Math.round((cores / throughput) * 1e6) : 0);
  const driverCores = mid((s) => s.driverCores);
  const servers = sides.map((s) => s.serverCores);
  const serverCores = servers.every((c) => c !== null) ? median(servers as number[]) : null;
  return {
    throughput: tenths(throughput),
    driverCores: hundredths(driverCores),
    driverUsPerTx: perTx(driverCores),
    serverCores: serverCores === null ? null : hundredths(serverCores),
    serverUsPerTx: serverCores === null ? null : perTx(serverCores),
    lockWaiters: hundredths(mid((s) => s.lockWaiters)),
    lockShare: hundredths(mid((s) => s.lockShare)),
  };
}

/**
 * Per client count: both medians and the ratio suite ÷ pgbench as the median of the per-trial ratios.
 * The two sides of a trial ran back to back, so each trial's ratio cancels whatever the machine was doing
 * then; the interval is the median's sign-test interval over those paired ratios.
 */
export function summarize(trials: readonly PairedTrial[]): ClientsSummary[] {
  const counts = [...new Set(trials.map((t) => t.clients))];
  return counts.map((clients) => {
    const mine = trials.filter((t) => t.clients === clients);
    const paired = mine.filter((t) => t.suite !== null && t.pgbench.throughput > 0);
    const ratios = paired.map((t) => (t.suite?.throughput ?? 0) / t.pgbench.throughput);
    const suites = mine.flatMap((t) => (t.suite ? [t.suite] : []));
    const interval = medianInterval(ratios);
    return {
      clients,
      pgbench: tenths(median(mine.map((t) => t.pgbench.throughput))),
      suite: suites.length > 0 ? tenths(median(suites.map((s) => s.throughput))) : null,
      ratio: ratios.length > 0 ? hundredths(median(ratios)) : null,
      interval: interval && {
        low: hundredths(interval.low),
        high: hundredths(interval.high),
        confidence: Math.round(interval.confidence * 1000) / 1000,
      },
      ratios: ratios.map(hundredths),
      profile: {
        pgbench: profileOf(mine.map((t) => t.pgbench)),
        suite: suites.length > 0 ? profileOf(suites) : null,
      },
      trials: [...mine],
    };
  });
}

const pad = (text: string, width: number) => text.padStart(width);
const fixed = (x: number | null, digits: number) => (x === null ? 'n/a' : x.toFixed(digits));
const percent = (x: number) => `${Math.round(x * 1000) / 10}%`.replace('.0%', '%');

/** The table the script prints: ratios and each side's driver CPU per transaction, then where the time went. */
export function renderYardstick(
  summaries: readonly ClientsSummary[],
  settings: Pick<YardstickSettings, 'trials' | 'warmupMs' | 'durationMs'>,
  driver: SuiteDriver,
): string {
  const lines = [
    `hot-row's reserve through pgbench -M prepared and through the suite (${driver.client} ${driver.version}, named statements), ` +
      `both over ${TRANSPORT_WORDS[driver.transport]}: ` +
      `${settings.trials} interleaved trial${settings.trials === 1 ? '' : 's'} of ${settings.durationMs} ms after ${settings.warmupMs} ms warm-up`,
    '',
    'clients  pgbench tx/s  suite tx/s  suite/pgbench  interval (coverage)         driver µs/tx pgbench / suite',
  ];
  for (const s of summaries) {
    const interval = s.interval
      ? `${s.interval.low.toFixed(2)}–${s.interval.high.toFixed(2)} (${percent(s.interval.confidence)})`
      : 'n/a (fewer than 2 trials)';
    const cpu = `${s.profile.pgbench.driverUsPerTx} / ${s.profile.suite ? s.profile.suite.driverUsPerTx : 'n/a'}`;
    lines.push(
      `${pad(String(s.clients), 7)}  ${pad(s.pgbench.toFixed(1), 12)}  ${pad(fixed(s.suite, 1), 10)}  ${pad(fixed(s.ratio, 2), 13)}  ${interval.padEnd(26)}  ${pad(cpu, 31)}`,
    );
  }
  lines.push(
    '',
    'suite/pgbench: median of the per-trial ratios (each trial ran both sides back to back, alternating which',
    'went first); interval: the sign-test interval of that median, exact for any distribution: 95% from 6',
    'trials on, lowest to highest ratio below that (75% with 3, 94% with 5).',
    '',
    'where the time went (medians over trials; cores = CPU seconds per second of the window, µs = CPU per',
    'transaction; driver = pgbench, or the suite with its worker threads; server = its backends and the',
    "server's auxiliary processes; lock = backends waiting on a lock, mean and share of 20 ms samples)",
    'clients  side     driver cores  µs/tx  server cores  µs/tx  lock waiters  lock share',
  );
  for (const s of summaries) {
    for (const [side, p] of [
      ['pgbench', s.profile.pgbench],
      ['suite', s.profile.suite],
    ] as const) {
      if (!p) continue;
      lines.push(
        `${pad(String(s.clients), 7)}  ${side.padEnd(7)}  ${pad(p.driverCores.toFixed(2), 12)}  ${pad(String(p.driverUsPerTx), 5)}  ${pad(fixed(p.serverCores, 2), 12)}  ${pad(p.serverUsPerTx === null ? 'n/a' : String(p.serverUsPerTx), 5)}  ${pad(p.lockWaiters.toFixed(2), 12)}  ${pad(p.lockShare.toFixed(2), 10)}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Why a suite trial did not count, for the lines printed after the table. */
export function failedTrialLines(
  failures: readonly { clients: number; trial: number; problems: readonly string[] }[],
): string[] {
  return failures.map(
    (f) => `yardstick: the suite's trial ${f.trial} at ${f.clients} clients failed: ${f.problems.join('; ')}`,
  );
}
