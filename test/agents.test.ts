/**
 * `bench --agents` through the real command line, against the shared test server: two local agents on
 * one seed, whose merged report counts what the two counted and reads its percentiles from the sum of
 * their histograms; a burst split over two agents, request i on agent i mod N, released by the one lock
 * and judged as every burst is; an agent the user starts with the command the bench prints (one that looks
 * for its tasks slowly, so that the bench must wait for it to leave before it drops the database); Ctrl-C of a bench whose
 * agents are running leaving no process, no database and nothing in the temp folder; and the combinations
 * that mean nothing refused in one line. Speeds are never asserted.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import * as hdr from 'hdr-histogram-js';
import pg from 'pg';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { OWNED_MARKER } from '../harness/database/database.ts';
import { processAlive } from '../harness/database/run-state.ts';
import { summarizeHistogram } from '../harness/driver/latency.ts';
import type { BenchReport } from '../harness/report/bench/bench-report.ts';
import { childTmp, oneLineProblem, runRefusals } from './bounded-cli.ts';
import { cliArgv } from './cli-child.ts';
import { schemaErrors } from './report-schema-validator.ts';
import { runCli } from './run-cli.ts';

const serverUrl = inject('serverUrl');
const reports = mkdtempSync(join(tmpdir(), 'reservebench-agents-'));
afterAll(() => rmSync(reports, { recursive: true, force: true }));

async function markedDatabases(): Promise<string[]> {
  const server = new pg.Client({ connectionString: serverUrl });
  await server.connect();
  try {
    const { rows } = await server.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE shobj_description(oid, 'pg_database') = $1",
      [OWNED_MARKER],
    );
    return rows.map((r) => r.datname);
  } finally {
    await server.end();
  }
}

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

function summed(records: readonly Record<string, number>[]): Record<string, number> {
  const total: Record<string, number> = {};
  for (const r of records) for (const [k, v] of Object.entries(r)) total[k] = (total[k] ?? 0) + v;
  return total;
}

/** The agents' histograms added up, encoded: what the bench's merged one must be, byte for byte. */
function addedUp(encoded: readonly string[]): { histogram: string; percentiles: number[] } {
  const total = hdr.decodeFromCompressedBase64(encoded[0] ?? '');
  for (const e of encoded.slice(1)) total.add(hdr.decodeFromCompressedBase64(e));
  const { p50, p95, p99 } = summarizeHistogram(total);
  return { histogram: hdr.encodeIntoCompressedBase64(total), percentiles: [p50, p95, p99] };
}

function parseReport(stdout: string, stderr: string): BenchReport {
  let report: BenchReport;
  try {
    report = JSON.parse(stdout) as BenchReport;
  } catch {
    throw new Error(`no JSON on stdout: ${stderr}`);
  }
  expect(schemaErrors(report, 'docs/bench-report.schema.json')).toEqual([]);
  return report;
}

describe('bench --agents', () => {
  it("merges two local agents' parts of one seeded open series: counts summed, histograms added", async () => {
    const before = new Set(await markedDatabases());
    const run = await runCli(
      [
        'bench',
        '--json',
        ...['--strategy', 'hot-row', '--clients', '4', '--agents', '2'],
        ...['--rate', '300', '--arrivals', 'poisson', '--seed', '7', '--latency-limit', '200'],
        ...['--trials', '1', '--warmup-ms', '200', '--duration-ms', '1000', '--reports', reports],
      ],
      { DATABASE_URL: serverUrl },
    );
    expect(run.code, run.stderr).toBe(0);
    const report = parseReport(run.stdout, run.stderr);
    const series = report.bench[0];
    const trial = series?.trials[0];
    const agents = trial?.agents ?? [];
    expect(agents.map((a) => [a.agent, a.clients])).toEqual([
      [1, 2],
      [2, 2],
    ]);
    expect(new Set(agents.map((a) => a.pid)).size).toBe(2);
    // Counts: the trial's are the agents' summed.
    expect(trial?.requests).toBe(sum(agents.map((a) => a.requests)));
    expect(trial?.requests).toBeGreaterThan(0);
    expect(trial?.outcomes).toEqual(summed(agents.map((a) => a.outcomes)));
    expect(trial?.open?.sent).toBe(trial?.requests);
    expect(trial?.open?.dropped).toBe(sum(agents.map((a) => a.dropped)));
    // The histogram: the agents' added bucket for bucket, and the percentiles read from it.
    const added = addedUp(agents.map((a) => a.histogram));
    expect(trial?.latencyHistogram).toBe(added.histogram);
    expect([trial?.latency.p50, trial?.latency.p95, trial?.latency.p99]).toEqual(added.percentiles);
    expect(trial?.latency.max).toBe(Math.max(...agents.map((a) => a.latency.max)));
    // The trial's generator is its busiest agent; the series keeps each agent beside.
    expect(trial?.saturation.generatorCores).toBe(Math.max(...agents.map((a) => a.generatorCores)));
    expect(series?.agents?.map((a) => [a.agent, a.requests, a.dropped])).toEqual(
      agents.map((a) => [a.agent, a.requests, a.dropped]),
    );
    expect(trial).toMatchObject({ status: 'ok', drift: 0, oversold: 0 });
    // Nothing outlives the bench: its agents, its run database (and the exchange in it).
    for (const a of agents) expect(processAlive(a.pid)).toBe(false);
    expect((await markedDatabases()).filter((d) => !before.has(d))).toEqual([]);
    const markdown = readFileSync(join(reports, 'latest-bench', 'report.md'), 'utf8');
    expect(markdown).toMatch(/## Load agents/);
  });

  it('splits a burst over two local agents, released by one lock, judged as one burst', async () => {
    const run = await runCli(
      [
        'bench',
        '--json',
        ...['--strategy', 'hot-row', '--burst', '60', '--stock', '20', '--clients', '8', '--agents', '2'],
        ...['--threads', '2', '--reports', reports],
      ],
      { DATABASE_URL: serverUrl },
    );
    expect(run.code, run.stderr).toBe(0);
    const burst = parseReport(run.stdout, run.stderr).burst?.[0];
    const agents = burst?.agents ?? [];
    // Each agent one process of the burst: request i on agent i mod 2, half each.
    expect(burst).toMatchObject({ status: 'ok', processes: 2, unitsSold: 20, oversold: 0, drift: 0 });
    expect(agents.map((a) => [a.agent, a.requests])).toEqual([
      [1, 30],
      [2, 30],
    ]);
    expect(new Set(agents.map((a) => a.pid)).size).toBe(2);
    expect(sum(agents.map((a) => a.held))).toBe(burst?.outcomes.HELD);
    expect(burst?.threads).toBe(sum(agents.map((a) => a.threads)));
    const markdown = readFileSync(join(reports, 'latest-bench', 'report.md'), 'utf8');
    expect(markdown).toMatch(/## Load agents[\s\S]*\| hot-row burst 60 +\| 2 +\|/);
    for (const a of agents) expect(processAlive(a.pid)).toBe(false);
  });

  it('waits for an agent the user starts with the command it prints, runs the closed loop on it, and lets it leave', async () => {
    const bench = spawn(
      process.execPath,
      cliArgv([
        'bench',
        '--json',
        ...['--strategy', 'hot-row', '--clients', '2', '--agents', '1', '--agents-external'],
        ...['--trials', '1', '--warmup-ms', '100', '--duration-ms', '300', '--reports', reports],
      ]),
      { env: { ...process.env, DATABASE_URL: serverUrl }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    // Taken now: a bench that does not wait for its agent has closed before the agent ends.
    const benchClosed = new Promise<number | null>((resolve) => bench.once('close', resolve));
    let stdout = '';
    bench.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const lines: string[] = [];
    const run = await new Promise<string>((resolve, reject) => {
      createInterface({ input: bench.stderr }).on('line', (line) => {
        lines.push(line);
        const name = /reservebench agent --run (reservebench_\w+)/.exec(line)?.[1];
        if (name) resolve(name);
      });
      bench.once('close', () => reject(new Error(`the bench exited: ${lines.join('\n')}`)));
    });
    // The password is never printed; the user's own URL names the server.
    expect(lines.join('\n')).not.toContain(new URL(serverUrl).password || '\u0000');
    // An agent that looks for its next task only every 1.5 s is still polling when the bench posts `done`:
    // a bench that dropped the run database without waiting for its agents to leave would fail it each time.
    const agent = await runCli(['agent', '--run', run, '--threads', '1'], {
      DATABASE_URL: serverUrl,
      RESERVEBENCH_AGENT_POLL_MS: '1500',
    });
    expect(agent.code, agent.stderr).toBe(0);
    expect(await benchClosed, lines.join('\n')).toBe(0);
    expect(agent.stderr).toMatch(/agent 1 of 1 joined the bench in reservebench_/);
    const report = parseReport(stdout, lines.join('\n'));
    const trial = report.bench[0]?.trials[0];
    expect(trial?.agents?.map((a) => [a.agent, a.clients, a.threads])).toEqual([[1, 2, 1]]);
    expect(trial?.outcomes.HELD).toBe(trial?.requests);
    expect(trial).toMatchObject({ status: 'ok', drift: 0 });
    expect(lines.join('\n')).toMatch(/agent 1 of 1 joined: /);
  });
});

/** The children of `pid`, from /proc (ppid is the field after the state). */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => {
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid ? [Number(name)] : [];
      } catch {
        return [];
      }
    });
}

async function sessions(applicationName: string): Promise<number> {
  const server = new pg.Client({ connectionString: serverUrl });
  await server.connect();
  try {
    const { rows } = await server.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name LIKE $1',
      [applicationName],
    );
    return rows[0]?.n ?? 0;
  } finally {
    await server.end();
  }
}

describe('Ctrl-C of a bench whose agents are running', () => {
  it('stops the agents, drops the run database and leaves nothing in the temp folder', async () => {
    const before = new Set(await markedDatabases());
    const tmp = childTmp('reservebench-agents-int-');
    let bench: ChildProcess | undefined;
    try {
      bench = spawn(
        process.execPath,
        cliArgv([
          'bench',
          ...['--strategy', 'hot-row', '--clients', '4', '--agents', '2'],
          ...['--trials', '1', '--warmup-ms', '100', '--duration-ms', '60000', '--reports', reports],
        ]),
        {
          env: { ...process.env, DATABASE_URL: serverUrl, TMPDIR: tmp },
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      let stderr = '';
      bench.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      const exited = new Promise<number | null>((resolve) => bench?.once('close', resolve));
      // Observed on the server: both agents joined and all four of their clients are connected.
      for (let n = 0; (await sessions('reservebench-bench-%')) < 4; n++) {
        if (n > 3000 || bench.exitCode !== null) throw new Error(`the trial never started: ${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const agents = childrenOf(bench.pid ?? 0);
      expect(agents).toHaveLength(2);
      // Only the bench gets the signal (a terminal's Ctrl-C would reach the agents too).
      bench.kill('SIGINT');
      expect(await exited, stderr).toBe(130);
      expect(stderr).toMatch(/reservebench: interrupted/);
      for (const pid of agents) expect(processAlive(pid)).toBe(false);
      expect(await sessions('reservebench-%')).toBe(0);
      expect((await markedDatabases()).filter((d) => !before.has(d))).toEqual([]);
      // The run's state file is gone; tsx's compile cache is tsx's own, shared by every run.
      const left = readdirSync(tmp).filter((n) => !n.startsWith('tsx-'));
      expect(left.flatMap((n) => (n === 'reservebench-state' ? readdirSync(join(tmp, n)) : [n]))).toEqual([]);
    } finally {
      if (bench?.exitCode === null) bench.kill('SIGKILL');
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe('an agent gone in the middle of a trial', () => {
  it('fails the trial, naming the agent, without waiting out the window, and leaves nothing', async () => {
    const before = new Set(await markedDatabases());
    const bench = spawn(
      process.execPath,
      cliArgv([
        'bench',
        '--json',
        ...['--strategy', 'hot-row', '--clients', '4', '--agents', '2'],
        ...['--trials', '1', '--warmup-ms', '100', '--duration-ms', '60000', '--reports', reports],
      ]),
      { env: { ...process.env, DATABASE_URL: serverUrl }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    bench.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    bench.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<number | null>((resolve) => bench.once('close', resolve));
    try {
      for (let n = 0; (await sessions('reservebench-bench-%')) < 4; n++) {
        if (n > 3000 || bench.exitCode !== null) throw new Error(`the trial never started: ${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const agents = childrenOf(bench.pid ?? 0);
      expect(agents).toHaveLength(2);
      process.kill(agents[1] ?? 0, 'SIGKILL');
      const began = performance.now();
      expect(await exited, stderr).toBe(1);
      // Well inside the 60 s window it would otherwise have waited out.
      expect(performance.now() - began).toBeLessThan(30_000);
      const trial = parseReport(stdout, stderr).bench[0]?.trials[0];
      expect(trial?.status).toBe('fail');
      expect(trial?.problems.join('\n')).toMatch(
        /the series could not run: (local agent \d exited \(SIGKILL\)|agent \d \(.*\) went away)/,
      );
      for (const pid of agents) expect(processAlive(pid)).toBe(false);
      expect((await markedDatabases()).filter((d) => !before.has(d))).toEqual([]);
    } finally {
      if (bench.exitCode === null) bench.kill('SIGKILL');
    }
  });
});

describe('what load agents cannot mean', () => {
  it('is refused in one line with exit 2, before anything starts', async () => {
    const bench = ['bench', '--strategy', 'hot-row'];
    const { answers, leftInTmp } = await runRefusals([
      { args: [...bench, '--agents', '2', '--burst', '10', '--processes', '2'] },
      { args: [...bench, '--agents', '2', '--admission', '4:8', '--clients', '4'] },
      { args: [...bench, '--agents', '3', '--clients', '2,8'] },
      { args: ['bench', '--strategy', 'payment-on-conflict', '--agents', '2', '--clients', '2'] },
      { args: [...bench, '--agents', '0'] },
      { args: [...bench, '--agents-external', '--clients', '4'] },
      { args: [...bench, '--agents', '1', '--agents-external', '--clients', '4'] },
      { args: ['agent'] },
      { args: ['agent', '--run', 'postgres'], env: { DATABASE_URL: serverUrl } },
      { args: ['agent'], env: { DATABASE_URL: serverUrl } },
      { args: ['agent'], env: { DATABASE_URL: serverUrl, RESERVEBENCH_AGENT_POLL_MS: 'soon' } },
    ]);
    const expected = [
      /--agents cannot go with --processes: with --burst each agent is one process of the burst/,
      /--agents cannot go with --admission: each agent would have a gate of its own/,
      /--agents 3 needs at least 3 clients in every series, and --clients 2 has 2/,
      /--agents 2 needs at least 2 pairs \(3 clients\) in every series, and --clients 2 has 1/,
      /--agents must be/,
      /--agents-external needs --agents\b/,
      /--agents-external needs --database-url/,
      /agent needs the bench's server/,
      /--run takes a run database's name/,
      /no bench is waiting for agents in database postgres/,
      /RESERVEBENCH_AGENT_POLL_MS must be a whole number of ms from 1 to 60000, not 'soon'/,
    ];
    answers.forEach((answer, i) => {
      expect(answer.stderr, String(expected[i])).toMatch(expected[i] ?? /^$/);
      expect(answer.code, answer.stderr).toBe(2);
      expect(oneLineProblem(answer.stderr), answer.stderr).toBe(true);
    });
    expect(leftInTmp).toEqual([]);
  });
});
