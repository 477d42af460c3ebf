/**
 * The yardstick's pure parts (its ratio and interval, the profile, its arguments) and its exits on the
 * real command line: a wrong argument is one line and exit 2, a missing pgbench one line and exit 0. The
 * measuring itself is run by hand (npm run yardstick), never asserted here.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { splitPassword } from '../scripts/pgbench-trial.ts';
import {
  medianInterval,
  type PairedTrial,
  PGBENCH_SCRIPT,
  parseYardstickArgs,
  renderYardstick,
  type SideTrial,
  suiteDriver,
  summarize,
  YardstickInputError,
} from '../scripts/yardstick-core.ts';

const ROOT = new URL('..', import.meta.url).pathname;

/** 1 − 2·P(Binomial(n, ½) < k): the chance that [k-th lowest, k-th highest] holds the median. */
function coverage(n: number, k: number): number {
  let below = 0;
  let term = 0.5 ** n;
  for (let i = 0; i < k; i++) {
    below += term;
    term = (term * (n - i)) / (i + 1);
  }
  return 1 - 2 * below;
}

const side = (throughput: number, extra: Partial<SideTrial> = {}): SideTrial => ({
  throughput,
  driverCores: 0.5,
  serverCores: 1,
  lockWaiters: 0,
  lockShare: 0,
  ...extra,
});

const trial = (clients: number, n: number, pgbench: number, suite: number | null): PairedTrial => ({
  trial: n,
  clients,
  first: n % 2 === 1 ? 'pgbench' : 'suite',
  pgbench: side(pgbench),
  suite: suite === null ? null : side(suite),
});

describe('the interval of the median ratio', () => {
  it('is the lowest to the highest value below 6 trials, with the coverage that has', () => {
    expect(medianInterval([0.9, 0.8, 1.1])).toEqual({ low: 0.8, high: 1.1, confidence: 0.75 });
    expect(medianInterval([1, 2, 3, 4, 5])).toEqual({ low: 1, high: 5, confidence: 0.9375 });
    expect(medianInterval([1])).toBeNull();
    expect(medianInterval([])).toBeNull();
  });

  it('takes the narrowest order statistics that still cover 95%, whatever the order of the values', () => {
    expect(medianInterval([6, 1, 5, 2, 4, 3])).toEqual({ low: 1, high: 6, confidence: 0.96875 });
    // Nine values: the 2nd lowest to the 2nd highest covers 1 − 2·10/512.
    expect(medianInterval([9, 8, 7, 6, 5, 4, 3, 2, 1])).toEqual({
      low: 2,
      high: 8,
      confidence: 1 - 20 / 512,
    });
    for (let n = 6; n <= 60; n++) {
      const values = Array.from({ length: n }, (_, i) => i + 1);
      const interval = medianInterval(values);
      const k = interval?.low ?? 0;
      expect(interval?.high).toBe(n + 1 - k);
      expect(interval?.confidence).toBeCloseTo(coverage(n, k), 12);
      expect(coverage(n, k)).toBeGreaterThanOrEqual(0.95);
      // The next pair inwards would fall short of 95%.
      if (k + 1 <= (n + 1) / 2) expect(coverage(n, k + 1)).toBeLessThan(0.95);
    }
  });

  it('holds the true median as often as it claims, on skewed draws (seeded)', () => {
    let state = 17;
    const random = () => {
      state = (state * 48271) % 2147483647;
      return state / 2147483647;
    };
    // Exponential draws (median ln 2): skewed like trial throughput on a busy machine.
    const draw = () => -Math.log(1 - random());
    for (const n of [3, 7]) {
      let held = 0;
      const runs = 4000;
      for (let r = 0; r < runs; r++) {
        const interval = medianInterval(Array.from({ length: n }, draw));
        if (interval && interval.low <= Math.LN2 && Math.LN2 <= interval.high) held += 1;
      }
      const claimed = medianInterval(Array.from({ length: n }, (_, i) => i))?.confidence ?? 0;
      expect(Math.abs(held / runs - claimed)).toBeLessThan(0.03);
    }
  });
});

describe('summarize', () => {
  it('pairs each trial: the median of per-trial ratios, both medians, and the interval over the ratios', () => {
    // Trial 2 ran on a machine twice as fast for both sides: the paired ratio does not move.
    const [one] = summarize([trial(4, 1, 1000, 900), trial(4, 2, 2000, 1800), trial(4, 3, 1000, 950)]);
    expect(one).toMatchObject({
      clients: 4,
      pgbench: 1000,
      suite: 950,
      ratio: 0.9,
      ratios: [0.9, 0.9, 0.95],
      interval: { low: 0.9, high: 0.95, confidence: 0.75 },
    });
  });

  it('leaves a failed suite trial out of the ratio, and keeps client counts apart in their order', () => {
    const summaries = summarize([
      trial(16, 1, 800, 400),
      trial(1, 1, 3000, 2700),
      trial(16, 2, 800, null),
      trial(1, 2, 3000, 3000),
    ]);
    expect(summaries.map((s) => s.clients)).toEqual([16, 1]);
    expect(summaries[0]).toMatchObject({ ratio: 0.5, ratios: [0.5], interval: null, suite: 400 });
    expect(summaries[1]).toMatchObject({ ratio: 0.95, interval: { low: 0.9, high: 1, confidence: 0.5 } });
  });

  it('profiles each side: cores, CPU per transaction, lock waiting', () => {
    const [s] = summarize([
      {
        trial: 1,
        clients: 1,
        first: 'pgbench',
        pgbench: side(4000, { driverCores: 0.2, serverCores: 0.9 }),
        suite: side(2500, { driverCores: 0.75, serverCores: null, lockWaiters: 0.4, lockShare: 0.3 }),
      },
    ]);
    expect(s?.profile.pgbench).toEqual({
      throughput: 4000,
      driverCores: 0.2,
      driverUsPerTx: 50,
      serverCores: 0.9,
      serverUsPerTx: 225,
      lockWaiters: 0,
      lockShare: 0,
    });
    expect(s?.profile.suite).toMatchObject({
      driverUsPerTx: 300,
      serverCores: null,
      serverUsPerTx: null,
      lockWaiters: 0.4,
    });
    const text = renderYardstick(
      summarize([trial(1, 1, 1000, 900)]),
      { trials: 1, warmupMs: 1000, durationMs: 5000 },
      suiteDriver({ transport: 'socket' }),
    );
    expect(text).toContain('suite/pgbench');
    // The driver is named, with how it reached the server, and each side's CPU per transaction (500 µs).
    expect(text).toMatch(
      /through the suite \(node-postgres \d+\.\d+\.\d+, named statements\), both over the embedded server's Unix socket/,
    );
    expect(text).toMatch(/^\s+1\s+1000\.0\s+900\.0\s+0\.90\s+n\/a \(fewer than 2 trials\)\s+500 \/ 556$/m);
    expect(text).toMatch(/^\s+1\s+suite\s+0\.50\s+556\s+1\.00\s+1111\s+0\.00\s+0\.00$/m);
  });
});

describe('the pgbench script', () => {
  it("sends hot-row's statements in its three round trips, with the suite's key shapes", () => {
    const words = PGBENCH_SCRIPT.split('\n')
      .filter((line) => /^\S/.test(line) && !line.startsWith('\\set'))
      .map((line) => line.split(/[\s;]/)[0]);
    expect(words).toEqual(['\\startpipeline', 'BEGIN', 'INSERT', '\\endpipeline', 'UPDATE', 'COMMIT']);
    expect(PGBENCH_SCRIPT).toContain("'bench-' || :client_id || '-' || :n");
    expect(PGBENCH_SCRIPT).not.toMatch(/SAVEPOINT|RETURNING/);
  });
});

describe('arguments', () => {
  it('has defaults for every measure', () => {
    expect(parseYardstickArgs([])).toEqual({
      clients: [1, 4, 16, 64, 150],
      warmupMs: 1000,
      durationMs: 5000,
      trials: 3,
      transport: 'socket',
      json: false,
    });
    expect(parseYardstickArgs(['--transport', 'tcp'])).toMatchObject({ transport: 'tcp' });
    // A server given by URL is reached as the URL says: no transport of the yardstick's own.
    expect(parseYardstickArgs(['--database-url', 'postgresql://h/db'])).not.toHaveProperty('transport');
    expect(
      parseYardstickArgs([
        '--clients',
        '2,8',
        '--trials',
        '7',
        '--threads',
        '1',
        '--json',
        '--warmup-ms',
        '0',
      ]),
    ).toMatchObject({ clients: [2, 8], trials: 7, threads: 1, json: true, warmupMs: 0 });
    expect(parseYardstickArgs(['--out', 'y.json'])).toMatchObject({ out: 'y.json', json: false });
  });

  it.each([
    [['--clients', '0'], '--clients takes whole numbers 1–250'],
    [['--clients', '1,,4'], '--clients takes whole numbers 1–250'],
    [['--clients', '4,4'], 'twice'],
    [['--clients', '1.5'], '--clients takes whole numbers 1–250'],
    [['--duration-ms', '999'], '--duration-ms takes whole milliseconds, at least 1000'],
    [['--warmup-ms=-1'], '--warmup-ms takes whole milliseconds'],
    [['--trials', '2.5'], '--trials takes a whole number 1–100'],
    [['--trials', '0'], '--trials takes a whole number 1–100'],
    [['--threads', 'two'], '--threads takes a whole number 1–64'],
    [['--speed', '9'], "Unknown option '--speed'; usage: npm run yardstick"],
    [['extra'], 'usage: npm run yardstick'],
    [['--clients'], "Option '--clients <value>' argument missing"],
    [['--out', ' '], '--out takes a file path'],
    [['--transport', 'udp'], '--transport takes socket or tcp'],
    [['--transport', 'tcp', '--database-url', 'postgresql://h/db'], '--transport is for the embedded server'],
  ])('%j is refused in one line', (argv, message) => {
    let error: unknown;
    try {
      parseYardstickArgs(argv);
    } catch (caught: unknown) {
      error = caught;
    }
    expect(error).toBeInstanceOf(YardstickInputError);
    expect((error as Error).message).toContain(message);
    expect((error as Error).message).not.toContain('\n');
  });
});

describe('the command line', () => {
  const yardstick = (args: string[], env: Record<string, string> = {}) =>
    spawnSync('npx', ['tsx', 'scripts/pgbench-yardstick.ts', ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, ...env },
      timeout: 60_000,
    });

  it('exits 2 with one line on a wrong argument', () => {
    const run = yardstick(['--clients', '1,x']);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toEqual([
      'yardstick: --clients takes whole numbers 1–250, comma-separated (e.g. 1,4,16,64)',
    ]);
  });

  it('says in one line that pgbench is missing, and exits 0', () => {
    const run = yardstick(['--clients', '1'], { PGBENCH: '/nonexistent/pgbench' });
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('yardstick: pgbench not found (PGBENCH=/nonexistent/pgbench): skipped\n');
    expect(run.stderr).toBe('');
  });
});

describe("pgbench's connection", () => {
  it('leaves the password out of its argv, for PGPASSWORD, socket parameter and all', () => {
    expect(splitPassword('postgresql://postgres:p%40ss@localhost:5432/db?host=%2Ftmp%2Fpg')).toEqual({
      url: 'postgresql://postgres@localhost:5432/db?host=%2Ftmp%2Fpg',
      password: 'p@ss',
    });
    expect(splitPassword('postgresql://me@h/db')).toEqual({ url: 'postgresql://me@h/db', password: '' });
  });
});
