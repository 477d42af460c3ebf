/**
 * An instance a load balancer can use, and a shared gate that survives an instance's death
 * (docs/scale.md): from the moment it listens an instance answers (503 STARTING with Retry-After until it is
 * ready, /health/live and /health/ready), SIGTERM stops admitting and finishes what was admitted, and the
 * permits of an instance killed with kill -9 come back to the others once their lease has run out. Each
 * `serve` here is a real process; every wait is on observed state (a printed line, pg_locks, an answer).
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { setTimeout as nextLook } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { SERVE } from '../harness/cli/commands/serve-command.ts';
import { gateChoiceFrom } from '../harness/cli/gate-options.ts';
import { resolveOptions } from '../harness/cli/resolve-options.ts';
import { blockedBy, freeze } from '../harness/contracts/reservation/gate/frozen-gate-case.ts';
import { type HttpAnswer, postReserve } from '../harness/contracts/reservation/http/loopback-client.ts';
import { oneLineProblem, runBounded } from './bounded-cli.ts';
import { cliArgv } from './cli-child.ts';
import { useRunDatabase } from './db-fixture.ts';

const { db } = useRunDatabase();
const children: ChildProcessByStdio<null, Readable, Readable>[] = [];
const clients: pg.Client[] = [];

afterAll(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
});

async function connection(): Promise<pg.Client> {
  const client = new pg.Client({
    connectionString: db().connectionString,
    application_name: 'lifecycle-test',
  });
  await client.connect();
  clients.push(client);
  return client;
}

interface Instance {
  child: ChildProcessByStdio<null, Readable, Readable>;
  /** Resolves with the URL of its first line matching `pattern`. */
  line(pattern: RegExp): Promise<string>;
  exited: Promise<number | null>;
}

/** `serve` on the test's run database, tables in `schema` (made by the first serve given it). */
function startInstance(args: string[]): Instance {
  const child = spawn(
    process.execPath,
    cliArgv(['serve', '--port', '0', '--expire-every-ms', '0', ...args]),
    {
      env: { ...process.env, DATABASE_URL: db().connectionString },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  const lines: string[] = [];
  const waiters: [RegExp, (url: string) => void][] = [];
  createInterface({ input: child.stdout }).on('line', (text) => {
    lines.push(text);
    for (const [pattern, resolve] of waiters) {
      const url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(text)?.[1];
      if (pattern.test(text) && url) resolve(url);
    }
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return {
    child,
    exited,
    line: (pattern) =>
      new Promise<string>((resolve, reject) => {
        waiters.push([pattern, resolve]);
        void exited.then(() => reject(new Error(`serve exited: ${lines.join('\n')}\n${stderr}`)));
      }),
  };
}

async function get(url: string): Promise<{ code: number; body: string; retryAfter: string | null }> {
  const res = await fetch(url, { signal: AbortSignal.timeout(1_000) });
  return { code: res.status, body: await res.text(), retryAfter: res.headers.get('retry-after') };
}

const reserve = (url: string, key: string) =>
  postReserve(url, { requestKey: key, user: `user-${key}`, sku: 'sku-lab-01', ttlMs: 60_000 });

/** The first answer `probe` gives that `done` accepts; on observed state, within `timeoutMs`. */
async function until<T>(probe: () => Promise<T>, done: (x: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const x = await probe();
    if (done(x)) return x;
    if (performance.now() > deadline) throw new Error(`not reached in ${timeoutMs} ms: ${JSON.stringify(x)}`);
    await nextLook(5);
  }
}

describe('an instance behind a load balancer', () => {
  it('answers from the moment it listens: 503 STARTING with Retry-After, within a second, until ready', async () => {
    // serve's start takes turns on the schema's advisory lock (service-tables.ts): held here, the start
    // cannot finish, so "while it starts" is a state the test holds, not a race it hopes to win.
    const holder = await connection();
    const schema = 'lifecycle_starting';
    await holder.query("SELECT pg_advisory_lock(hashtext('reservebench-serve:' || $1))", [schema]);
    const instance = startInstance(['--schema', schema]);
    let url: string;
    try {
      url = await instance.line(/^starting on /);
      const began = performance.now();
      const answer = await Promise.race([
        reserve(url, 'while-starting'),
        nextLook(1_000).then(() => 'unanswered' as const),
      ]);
      expect(answer).not.toBe('unanswered');
      const { code, fields, retryAfter } = answer as HttpAnswer;
      expect([code, fields.outcome, retryAfter]).toEqual([503, 'STARTING', '1']);
      expect(performance.now() - began).toBeLessThan(1_000);
      expect((await get(`${url}/health/ready`)).code).toBe(503);
      expect((await get(`${url}/health/live`)).code).toBe(200);
    } finally {
      await holder.query("SELECT pg_advisory_unlock(hashtext('reservebench-serve:' || $1))", [schema]);
    }
    await instance.line(/^listening on /);
    expect((await get(`${url}/health/ready`)).code).toBe(200);
    expect((await reserve(url, 'once-ready')).code).toBe(201);
    instance.child.kill('SIGTERM');
    expect(await instance.exited).toBe(0);
  });

  it('on SIGTERM stops admitting (503 DRAINING), finishes what it admitted, and exits 0', async () => {
    const instance = startInstance(['--schema', 'lifecycle_drain', '--work-ms', '1500']);
    const url = await instance.line(/^listening on /);
    const admitted = reserve(url, 'admitted-before-sigterm');
    await until(
      async () => (await (await fetch(`${url}/admission`)).json()) as { inFlight: number },
      (c) => c.inFlight === 1,
    );
    instance.child.kill('SIGTERM');
    await until(
      () => get(`${url}/health/ready`),
      (r) => r.code === 503 && r.body.includes('DRAINING'),
    );
    const turnedAway = await reserve(url, 'after-sigterm');
    expect([turnedAway.code, turnedAway.fields.outcome, turnedAway.retryAfter]).toEqual([
      503,
      'DRAINING',
      '1',
    ]);
    const first = await admitted;
    expect([first.code, first.fields.outcome]).toEqual([201, 'HELD']);
    expect(await instance.exited).toBe(0);
  });
});

describe('a shared PostgreSQL gate when an instance is killed (kill -9) holding permits', () => {
  it('gives its permits back to the other instances once their lease has run out', async () => {
    const schema = 'lifecycle_lease';
    const gate = ['--schema', schema, '--gate', 'postgres', '--gate-lease-ms', '1000', '--admission', '2:8'];
    const victim = startInstance([...gate, '--wait-ms', '200']);
    const victimUrl = await victim.line(/^listening on /);
    const impatient = startInstance([...gate, '--wait-ms', '200']);
    const impatientUrl = await impatient.line(/^listening on /);
    const patient = startInstance([...gate, '--wait-ms', '5000']);
    const patientUrl = await patient.line(/^listening on /);
    const holder = await connection();
    const observer = await connection();
    const holderPid = await freeze(holder, schema);
    try {
      // Both permits taken by the victim, its two requests held inside the database.
      const held = [reserve(victimUrl, 'victim-1'), reserve(victimUrl, 'victim-2')];
      for (const answer of held) answer.catch(() => undefined);
      await until(
        () => blockedBy(observer, holderPid),
        (n) => n === 2,
      );
      // The control: while they are held, the gate is full for every other instance.
      const full = await reserve(impatientUrl, 'while-held');
      expect([full.code, full.fields.outcome]).toEqual([503, 'REJECTED_WAIT_TIMEOUT']);
      victim.child.kill('SIGKILL');
      await victim.exited;
      const killedAt = performance.now();
      // Its backends stay blocked inside; its permits come back when their lease (1 s) runs out.
      const after = reserve(patientUrl, 'after-kill');
      await until(
        () => blockedBy(observer, holderPid),
        (n) => n === 3,
      );
      const backWithinMs = performance.now() - killedAt;
      await holder.query('COMMIT');
      const answer = await after;
      expect([answer.code, answer.fields.outcome]).toEqual([201, 'HELD']);
      // Back before the 5 s the patient request would wait: within the lease and its renewal slack.
      expect(backWithinMs).toBeLessThan(5_000);
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      for (const instance of [impatient, patient]) instance.child.kill('SIGTERM');
      await Promise.all([impatient.exited, patient.exited]);
    }
  });
});

describe('serve refuses a gate or instance count it cannot run, in one line, exit 2', () => {
  it.each([
    [['--gate', 'memcached'], /--gate must be one of local, postgres, redis, got "memcached"/],
    [['--instances', '2', '--node', '1/2'], /--node cannot go with --instances/],
  ])('refuses %j before anything starts', async (args, message) => {
    const run = await runBounded(['serve', '--port', '0', ...args]);
    expect(run).toMatchObject({ code: 2, timedOut: false, leftInTmp: [] });
    expect(oneLineProblem(run.stderr)).toBe(true);
    expect(run.stderr).toMatch(message);
  });

  it.each([
    [{ gate: 'redis' }, /--gate redis needs --redis-url/],
    [{ 'gate-failure': 'open' }, /--gate-failure needs a shared gate/],
    [{ gate: 'postgres', 'gate-lease-ms': '5' }, /--gate-lease-ms must be/],
    [{ gate: 'redis', 'redis-url': 'http://x' }, /must start with redis:\/\//],
    [{ 'redis-url': 'redis://127.0.0.1:1' }, /--redis-url needs --gate redis/],
  ])('checks the gate options %j', (args, message) => {
    vi.stubEnv('REDIS_URL', '');
    expect(() => {
      const { values, context } = resolveOptions(SERVE, args);
      gateChoiceFrom(values, context.label);
    }).toThrow(message);
    vi.unstubAllEnvs();
  });
});
