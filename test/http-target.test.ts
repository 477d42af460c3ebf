/**
 * `run --target`: the suite driven against a real service through its HTTP API, with real `serve`
 * processes on the shared test server. Dogfood (hot-row behind serve gives the in-process counts), the
 * negative control (check-then-act behind serve is caught by the same check as in-process, and fails the
 * run when it is expected to hold), two serve processes on one set of tables with requests spread over
 * both (hot-row and memory-quota hold; memory-quota-config-restart is caught once a node restarts through
 * --target-restart), and bad input stopped before any case. Counts and relations only, never a timing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { targetArgs } from '../harness/cli/black-box-options.ts';
import { RUN } from '../harness/cli/commands/run-command.ts';
import { resolveOptions } from '../harness/cli/resolve-options.ts';
import { exchange } from '../harness/contracts/reservation/blackbox/api-exchange.ts';
import { ExchangeLog } from '../harness/contracts/reservation/blackbox/exchange-log.ts';
import type { CaseResult, MeasuredCase } from '../harness/contracts/reservation/verdict/case-result.ts';
import { HarnessError } from '../harness/errors.ts';
import type { Report } from '../harness/report/report.ts';
import { RESTART_HOOK, ServeProcess, startSupervisor } from '../scripts/serve-nodes.ts';
import { oneLineProblem, runBounded } from './bounded-cli.ts';
import { schemaErrors } from './report-schema-validator.ts';
import { measured, runCli, runJson } from './run-cli.ts';

const serverUrl = inject('serverUrl');
/** The scenarios a black box can run without a restart hook: every other one needs more than the API. */
const BLACK_BOX = ['contention', 'contention-30-2', 'duplicate-key', 'key-reuse', 'user-limit'];

/** `run --json --target …` with reports in a throwaway folder; the report is checked against its schema. */
async function runTarget(
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; report: Report }> {
  const reports = mkdtempSync(join(tmpdir(), 'reservebench-target-'));
  try {
    const run = await runCli(['run', '--json', '--reports', reports, ...args], env);
    let report: Report;
    try {
      report = JSON.parse(run.stdout) as Report;
    } catch {
      throw new Error(`no JSON on stdout (exit ${run.code}): ${run.stderr}`);
    }
    expect(schemaErrors(report)).toEqual([]);
    return { code: run.code, report };
  } finally {
    rmSync(reports, { recursive: true, force: true });
  }
}

const byScenario = (cases: readonly CaseResult[], scenario: string) => {
  const found = cases.find((c) => c.scenario === scenario);
  if (!found) throw new Error(`no case of ${scenario}`);
  return found;
};
/** The cases that failed or broke, with the line that says why (empty when the run held). */
const failures = (report: Report) =>
  report.cases
    .filter((c) => c.status === 'fail' || c.status === 'broken')
    .map((c) => `${c.id}: ${c.boundary}`);
const measuredScenarios = (cases: readonly CaseResult[]) =>
  cases.filter((c) => c.status === 'pass' || c.status === 'fail').map((c) => c.scenario);

/** The invariants both a strategy and a black box have (a black box has no audit). */
function sharedInvariants(c: MeasuredCase) {
  const { duplicateKey: _key, auditMismatch: _audit, ...rest } = c.invariants;
  return rest;
}

const serves: ServeProcess[] = [];
function serve(args: string[]): ServeProcess {
  const s = new ServeProcess(['--expire-every-ms', '0', ...args], serverUrl);
  serves.push(s);
  return s;
}

afterAll(async () => {
  await Promise.all(serves.map((s) => s.stop()));
});

describe('run --target against serve --strategy hot-row (dogfood)', () => {
  const hotRow = serve([
    '--strategy',
    'hot-row',
    '--allow-reset',
    '--admission',
    '32:200',
    '--wait-ms',
    '10000',
  ]);
  beforeAll(async () => {
    await hotRow.start();
  });

  it('passes every case a black box can run, with the in-process counts, and says why the others are n/a', async () => {
    const [{ code, report }, inProcess] = await Promise.all([
      runTarget(['--target', hotRow.url]),
      runJson(serverUrl, ['--strategy', 'hot-row', '--scenario', BLACK_BOX.join(',')]),
    ]);
    expect(failures(report)).toEqual([]);
    expect(code).toBe(0);
    expect(report.ok).toBe(true);
    expect(report.environment.database).toBe('target');
    expect(measuredScenarios(report.cases).sort()).toEqual(BLACK_BOX);
    for (const scenario of BLACK_BOX) {
      const outside = measured(report.cases, `${scenario}/target`);
      const inside = measured(inProcess.report.cases, `${scenario}/hot-row`);
      expect(outside.status, scenario).toBe('pass');
      expect(outside.outcomes, scenario).toEqual(inside.outcomes);
      expect(sharedInvariants(outside), scenario).toEqual(sharedInvariants(inside));
      expect(outside.audit).toBeUndefined();
      expect(outside.noAudit).toMatch(/^no audit: black box/);
      expect(outside.invariants.auditMismatch).toBeUndefined();
    }
    expect(measured(report.cases, 'contention/target').outcomes).toEqual({ HELD: 40, SOLD_OUT: 110 });
    expect(measured(report.cases, 'duplicate-key/target').outcomes).toEqual({ HELD: 1, REPLAY: 15 });
    expect(measured(report.cases, 'user-limit/target').outcomes).toEqual({ HELD: 1, USER_LIMIT: 7 });
    expect(measured(report.cases, 'key-reuse/target').outcomes).toEqual({ HELD: 1, KEY_REUSED: 2 });

    // HTTP facts: every answer counted by code, every 503 retried with the same key and counted.
    const contention = measured(report.cases, 'contention/target');
    const reserve = contention.http?.endpoints.find((e) => e.endpoint === 'POST /reserve');
    const lookups = contention.http?.endpoints.find((e) => e.endpoint === 'GET /reservations/{request_key}');
    expect(reserve?.codes['201']).toBe(40);
    expect(reserve?.codes['409']).toBe(110);
    expect(reserve?.codes['503'] ?? 0).toBe(reserve?.retried503);
    expect(reserve?.requests).toBe(150 + (reserve?.retried503 ?? 0));
    expect(contention.retries?.['503 Retry-After'] ?? 0).toBe(reserve?.retried503);
    expect(lookups?.requests).toBe(150 + (lookups?.retried503 ?? 0));
    expect(report.target?.http.endpoints.map((e) => e.endpoint)).toContain('POST /admin/reset');

    // Everything else sits out with its reason, from what each scenario declares.
    const reason = (scenario: string) => {
      const c = byScenario(report.cases, scenario);
      return c.status === 'n/a' ? c.reason : `ran: ${c.status}`;
    };
    expect(reason('false-sold-out')).toMatch(/interleaving.*pg_blocking_pids/);
    expect(reason('backend-killed')).toMatch(/SQL steps/);
    expect(reason('db-crash')).toMatch(/crashes and restarts the database/);
    expect(reason('restart')).toMatch(/restarts a node \(run it with --target-restart\)/);
    expect(reason('http')).toMatch(/own HTTP service/);
    expect(reason('commit-ack-lost')).toMatch(/proxy/);
    expect(reason('ttl-expiry')).toMatch(/database's own clock/);
    expect(reason('expiry')).toBe('not covered: expiry — no expire');
    expect(reason('contention-aborts')).toMatch(/^not covered: .*pause point/);
    expect(report.coverage[0]?.cells.expiry).toBe('not covered');
    expect(report.coverage[0]?.cells['false-sold-out']).toBe('n/a');
    expect(report.target?.setup).toBe('reset');
    expect(report.target?.ran.sort()).toEqual(BLACK_BOX);
    expect(report.target?.notApplicable.map((n) => n.scenario)).toContain('restart');
  });
});

describe('run --target with --target-setup', () => {
  const setup = `${process.execPath} ${new URL('./fixtures/target/load-stock.js', import.meta.url).pathname}`;
  const hotRow = serve(['--strategy', 'hot-row', '--allow-reset']);
  beforeAll(async () => {
    await hotRow.start();
  });

  it('loads the stock of each case with the command (RESERVEBENCH_STOCK); a failing command breaks the case in one line', async () => {
    const args = ['--target', hotRow.url, '--target-setup', setup, '--scenario', 'key-reuse'];
    // One after the other: both runs reset and load the one service, and must not interleave there.
    const loaded = await runTarget(args);
    const failing = await runTarget(args, { SETUP_FAIL: '1' });
    expect(failures(loaded.report)).toEqual([]);
    expect(loaded.code).toBe(0);
    expect(loaded.report.target?.setup).toBe('command');
    // Two skus of 40 each, as the scenario loads them: the command got the stock.
    expect(measured(loaded.report.cases, 'key-reuse/target').invariants).toMatchObject({
      total: 80,
      available: 79,
    });
    expect(failing.code).toBe(1);
    expect(failures(failing.report)).toEqual([
      'key-reuse/target: setup failed: --target-setup exited 3: no stock loader for key-reuse/target',
    ]);
  });
});

describe('run --target against a known-unsafe service (negative control)', () => {
  const checkThenAct = serve([
    '--strategy',
    'check-then-act',
    '--allow-reset',
    '--admission',
    '32:200',
    '--wait-ms',
    '10000',
  ]);
  beforeAll(async () => {
    await checkThenAct.start();
  });

  it('is caught by oversold in contention, as check-then-act is in-process', async () => {
    const [{ code, report }, inProcess] = await Promise.all([
      runTarget([
        '--target',
        checkThenAct.url,
        '--scenario',
        'contention,duplicate-key',
        '--target-expect',
        'violate',
        '--caught-by',
        'contention:oversold',
      ]),
      runJson(serverUrl, ['--strategy', 'check-then-act', '--scenario', 'contention']),
    ]);
    expect(failures(report)).toEqual([]);
    expect(code).toBe(0);
    const outside = measured(report.cases, 'contention/target');
    const inside = measured(inProcess.report.cases, 'contention/check-then-act');
    expect(outside.status).toBe('pass');
    expect(outside.boundary).toMatch(/^caught: oversold/);
    expect(outside.fired).toContain('oversold');
    expect(inside.fired).toContain('oversold');
    // A control sits out the scenarios that are not meant to catch it.
    expect(byScenario(report.cases, 'duplicate-key').status).toBe('n/a');
  });

  it('fails the run on oversold when the same service is expected to hold', async () => {
    const { code, report } = await runTarget(['--target', checkThenAct.url, '--scenario', 'contention']);
    expect(code).toBe(1);
    const c = measured(report.cases, 'contention/target');
    expect(c.status).toBe('fail');
    expect(c.fired).toContain('oversold');
  });
});

describe('run --target against two serve processes on one set of tables', () => {
  const schema = `rb_target_${process.pid}`;
  let supervisor: Awaited<ReturnType<typeof startSupervisor>> | undefined;
  /** The nodes of the setup under test, restarted by the hook through this supervisor. */
  let nodes: ServeProcess[] = [];
  const twoNodes = async (strategy: string) => {
    await Promise.all(nodes.map((n) => n.stop()));
    await dropSchema();
    nodes = [1, 2].map((i) =>
      serve([
        '--strategy',
        strategy,
        '--schema',
        schema,
        '--node',
        `${i}/2`,
        '--allow-reset',
        '--admission',
        '32:200',
        '--wait-ms',
        '10000',
      ]),
    );
    // At once: a lock per schema lets one create it and its tables; the other finds them.
    await Promise.all(nodes.map((n) => n.start()));
    return nodes.map((n) => n.url).join(',');
  };
  const dropSchema = async () => {
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  };
  beforeAll(async () => {
    supervisor = await startSupervisor(() => nodes);
  });
  afterAll(async () => {
    await Promise.all(nodes.map((n) => n.stop()));
    await supervisor?.close();
    await dropSchema();
  });
  const hook = ['--target-restart', RESTART_HOOK];
  const env = () => ({ TARGET_CONTROL_URL: supervisor?.url ?? '' });

  it('hot-row passes every case a black box can run, restarts included, with requests spread over both', async () => {
    const urls = await twoNodes('hot-row');
    const { code, report } = await runTarget(['--target', urls, ...hook], env());
    expect(failures(report)).toEqual([]);
    expect(code).toBe(0);
    expect(measuredScenarios(report.cases).sort()).toEqual(
      [...BLACK_BOX, 'node-restart-partial', 'restart'].sort(),
    );
    expect(report.cases.filter((c) => c.status === 'pass').length).toBe(BLACK_BOX.length + 2);
    expect(measured(report.cases, 'contention/target').outcomes).toEqual({ HELD: 40, SOLD_OUT: 110 });
    expect(measured(report.cases, 'restart/target').outcomes).toEqual({ HELD: 40, SOLD_OUT: 80 });
    expect(report.target?.urls).toHaveLength(2);
    // Both processes took writes (node 1 was restarted, so its counters start after its last start).
    for (const n of nodes) expect(await n.admitted()).toBeGreaterThan(0);
  });

  it('memory-quota (a share per process, rebuilt from the ledger on restart) holds', async () => {
    const urls = await twoNodes('memory-quota');
    const { code, report } = await runTarget(
      ['--target', urls, ...hook, '--scenario', 'restart,node-restart-partial'],
      env(),
    );
    expect(failures(report)).toEqual([]);
    expect(code).toBe(0);
    expect(measured(report.cases, 'restart/target').outcomes).toEqual({ HELD: 40, SOLD_OUT: 80 });
    expect(measured(report.cases, 'node-restart-partial/target').outcomes).toEqual({
      HELD: 40,
      SOLD_OUT: 10,
    });
  });

  it('memory-quota-config-restart is caught by oversold once a node restarts', async () => {
    const urls = await twoNodes('memory-quota-config-restart');
    const { code, report } = await runTarget(
      [
        '--target',
        urls,
        ...hook,
        '--scenario',
        'restart,node-restart-partial',
        '--target-expect',
        'violate',
        '--caught-by',
        'restart:oversold,node-restart-partial:oversold',
      ],
      env(),
    );
    expect(failures(report)).toEqual([]);
    expect(code).toBe(0);
    for (const scenario of ['restart', 'node-restart-partial']) {
      const c = measured(report.cases, `${scenario}/target`);
      expect(c.status, scenario).toBe('pass');
      expect(c.fired, scenario).toContain('oversold');
    }
  });
});

describe('serve --schema uses and drops only schemas serve made for the same strategy', () => {
  it('refuses a schema it did not create, and one that holds another strategy, with one line (exit 2)', async () => {
    const foreign = `rb_foreign_${process.pid}`;
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    const holder = serve(['--strategy', 'hot-row', '--schema', `${foreign}_made`]);
    try {
      await admin.query(`CREATE SCHEMA ${foreign}`);
      await admin.query(`CREATE TABLE ${foreign}.mine (x int)`);
      await holder.start();
      const [unmarked, other] = await Promise.all([
        runBounded(['serve', '--port', '0', '--schema', foreign], { env: { DATABASE_URL: serverUrl } }),
        runBounded(['serve', '--port', '0', '--schema', `${foreign}_made`, '--strategy', 'memory-quota'], {
          env: { DATABASE_URL: serverUrl },
        }),
      ]);
      expect(unmarked.code).toBe(2);
      expect(oneLineProblem(unmarked.stderr), unmarked.stderr).toBe(true);
      expect(unmarked.stderr).toMatch(/exists and was not created by reservebench serve/);
      expect(other.code).toBe(2);
      expect(oneLineProblem(other.stderr), other.stderr).toBe(true);
      expect(other.stderr).toMatch(/holds the tables of strategy hot-row, not memory-quota/);
      // Nothing of the user's was touched.
      const { rows } = await admin.query('SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = $1', [
        foreign,
      ]);
      expect(rows[0]).toEqual({ n: 1 });
    } finally {
      await holder.stop();
      await admin.query(`DROP SCHEMA IF EXISTS ${foreign} CASCADE`);
      await admin.query(`DROP SCHEMA IF EXISTS ${foreign}_made CASCADE`);
      await admin.end();
    }
  });
});

describe('run --target: what it needs before any case', () => {
  it('refuses a target that is not http(s), unreachable, or not the API: exit 2, one line, no case', async () => {
    const stub = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html>'),
    );
    await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
    const address = stub.address();
    const stubUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    try {
      const cases: [string[], RegExp][] = [
        [['--target', 'ftp://127.0.0.1:1'], /--target must be http:\/\/ or https:\/\/ base URLs/],
        [['--target', 'http://127.0.0.1:1'], /--target http:\/\/127\.0\.0\.1:1: unreachable/],
        [['--target', stubUrl], /does not speak the reservation API .* answered 200/],
        [['--target', stubUrl, '--strategy', 'hot-row'], /--strategy cannot go with --target/],
      ];
      // Two at a time: the machine has two cores.
      for (let i = 0; i < cases.length; i += 2) {
        await Promise.all(
          cases.slice(i, i + 2).map(async ([args, message]) => {
            const run = await runBounded(['run', ...args]);
            expect(run.code, args.join(' ')).toBe(2);
            expect(oneLineProblem(run.stderr), run.stderr).toBe(true);
            expect(run.stderr).toMatch(message);
            expect(run.stdout).toBe('');
            expect(run.leftInTmp).toEqual([]);
          }),
        );
      }
    } finally {
      await new Promise((resolve) => stub.close(resolve));
    }
    // The rest of the options' checks, without a process each (the fuzz test holds every refusal to one line).
    const refusal = (args: Record<string, unknown>) => {
      try {
        const { values, context } = resolveOptions(RUN, args);
        targetArgs(values, context.label);
        return 'accepted';
      } catch (error: unknown) {
        return error instanceof HarnessError ? `${error.exitCode}: ${error.message}` : String(error);
      }
    };
    const url = 'http://127.0.0.1:9';
    expect(refusal({ 'target-restart': 'true' })).toBe('2: --target-restart needs --target');
    expect(refusal({ target: [url], 'target-expect': 'violate' })).toMatch(/^2: .*needs --caught-by/);
    expect(refusal({ target: [url], 'target-expect': 'violate', 'caught-by': ['contention:nope'] })).toMatch(
      /^2: .*unknown check/,
    );
    expect(refusal({ target: [url], 'caught-by': ['contention:oversold'] })).toMatch(
      /^2: .*goes with --target-expect violate/,
    );
    expect(refusal({ target: [`${url},${url}/`] })).toMatch(/^2: --target names .* twice/);
    expect(refusal({ target: ['http://u:p@127.0.0.1:9'] })).toMatch(/^2: .*no credentials/);
    expect(refusal({ target: [url], keep: true })).toMatch(/^2: --keep cannot go with --target/);
    expect(refusal({ target: [url], threads: '2' })).toMatch(/^2: --threads cannot go with --target/);
    expect(
      refusal({ target: [`${url}/api/`], 'target-expect': 'violate', 'caught-by': ['restart:oversold'] }),
    ).toBe('accepted');
  });

  it('without a way to load stock, runs nothing, says why, and does not pass', async () => {
    const noReset = serve(['--strategy', 'hot-row']);
    const url = await noReset.start();
    try {
      const { code, report } = await runTarget(['--target', url, '--scenario', 'contention,duplicate-key']);
      expect(code).toBe(1);
      expect(report.ok).toBe(false);
      expect(report.target?.setup).toBe('none');
      expect(report.cases.every((c) => c.status === 'n/a')).toBe(true);
      expect(
        byScenario(report.cases, 'contention').status === 'n/a' && byScenario(report.cases, 'contention'),
      ).toMatchObject({
        reason: expect.stringMatching(/none tolerates stock already there/),
      });
      expect(report.target?.notes.join('\n')).toMatch(/none ran/);
    } finally {
      await noReset.stop();
    }
  });

  it('retries a 503 with Retry-After with the same request, bounded, and counts every retry', async () => {
    const bodies: string[] = [];
    let answers = 0;
    const busy = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      req.on('end', () => {
        bodies.push(body);
        answers += 1;
        if (req.url === '/always-busy' || answers <= 2) {
          res.writeHead(503, { 'retry-after': '0' }).end('outcome=REJECTED_QUEUE_FULL\n');
        } else res.writeHead(201).end('outcome=HELD\nstatus=HELD\n');
      });
    });
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const address = busy.address();
    const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    try {
      const log = new ExchangeLog();
      let told = 0;
      const body = JSON.stringify({ request_key: 'k-1', user: 'u-1', sku: 's', ttl_ms: 1000 });
      const answer = await exchange(log, {
        endpoint: 'POST /reserve',
        url: `${url}/reserve`,
        method: 'POST',
        body,
        timeoutMs: 5000,
        retry503: true,
        onRetry: () => {
          told += 1;
        },
      });
      expect(answer).toMatchObject({ code: 201, retried: 2, exhausted: false });
      expect(bodies).toEqual([body, body, body]);
      expect(told).toBe(2);
      const facts = log.take();
      expect(facts.retried503).toBe(2);
      expect(facts.endpoints[0]?.codes).toEqual({ '201': 1, '503': 2 });

      const given = await exchange(log, {
        endpoint: 'POST /reserve',
        url: `${url}/always-busy`,
        method: 'POST',
        body,
        timeoutMs: 5000,
        retry503: true,
      });
      expect(given).toMatchObject({ code: 503, exhausted: true, retried: 19 });
      expect(log.take().endpoints[0]?.codes).toEqual({ '503': 20 });
    } finally {
      await new Promise((resolve) => busy.close(resolve));
    }
  });
});
