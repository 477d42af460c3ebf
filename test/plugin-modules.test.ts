/**
 * Issue 13, plug-ins: a strategy file anywhere loads (also outside a "type": "module" package), a syntax
 * error is shown with file:line:column, and an answer with an outcome the contract does not have is
 * recorded as an ERROR naming it instead of vanishing from the counts. Issue 25: a plug-in that calls
 * process.exit ends the run with exit 2 and one line naming it, never with its own code; one that never
 * finishes loading is refused in one line, and Ctrl-C or SIGTERM ends the run while it loads.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as nextLook } from 'node:timers/promises';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { Report } from '../harness/report/report.ts';
import { oneLineProblem, runBounded } from './bounded-cli.ts';
import { cliArgv } from './cli-child.ts';
import { measured } from './run-cli.ts';

const serverUrl = inject('serverUrl');
/** No package.json here or above: tsx reads a .ts file in it as CommonJS. */
const folder = mkdtempSync(join(tmpdir(), 'reservebench-plugin-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** A design with no tables that answers `outcome` to every request. */
function plugin(id: string, outcome: string, header = ''): string {
  return `${header}
const stock = new Map<string, number>();
export default {
  id: '${id}',
  title: 'answers ${outcome}',
  guarantee: 'none: it only answers, to test the harness',
  expect: 'hold',
  pausePoints: {},
  setup: async (_db: unknown, lines: { sku: string; total: number }[]) => {
    for (const line of lines) stock.set(line.sku, line.total);
  },
  reserve: async () => ({ outcome: '${outcome}' }),
  status: async () => 'NOT_FOUND',
  remaining: async (_db: unknown, sku: string) => stock.get(sku) ?? 0,
  audit: async () => ({
    skus: [...stock].map(([sku, total]) => ({ sku, total, available: total, active: 0 })),
    duplicateActive: 0,
    duplicateKey: 0,
    activeKeys: [],
    endedKeys: [],
  }),
};
`;
}

function write(name: string, text: string): string {
  const path = join(folder, name);
  writeFileSync(path, text);
  return path;
}

async function runCase(path: string): Promise<{ code: number | null; stderr: string; report: Report }> {
  const reports = join(folder, 'reports');
  const run = await runBounded(
    ['run', '--json', '--strategy', path, '--scenario', 'user-limit', '--reports', reports],
    { timeoutMs: 60_000, env: { DATABASE_URL: serverUrl } },
  );
  expect(run.stderr).not.toMatch(/cannot load/);
  return { code: run.code, stderr: run.stderr, report: JSON.parse(run.stdout) as Report };
}

describe('a strategy module outside a "type": "module" package', () => {
  it.each([
    ['importing nothing', 'plain.ts', ''],
    [
      'importing node: modules',
      'uses-node.ts',
      "import { randomUUID } from 'node:crypto';\nvoid randomUUID;",
    ],
  ])('%s loads and runs', async (_, name, header) => {
    const { code, report } = await runCase(write(name, plugin(name.replace('.ts', ''), 'SOLD_OUT', header)));
    const c = measured(report.cases, `user-limit/${name.replace('.ts', '')}`);
    expect(c.status).toBe('fail');
    expect(c.outcomes).toEqual({ SOLD_OUT: 8 });
    expect(code).toBe(1);
  });

  it('records an unknown outcome as an ERROR that names it', async () => {
    const { code, report } = await runCase(write('banana.ts', plugin('banana', 'BANANA')));
    const c = measured(report.cases, 'user-limit/banana');
    expect(c.outcomes).toEqual({ ERROR: 8 });
    expect(c.problems.join('\n')).toMatch(/8 operation\(s\) failed, first: unknown outcome "BANANA"/);
    expect(code).toBe(1);
  });
});

describe('a module that does not load is refused with one line saying where', () => {
  it.each([
    [
      'a TypeScript syntax error',
      'broken.ts',
      'export default {\n  id: "x",\n  title: ,\n};\n',
      /broken\.ts:3:10: /,
    ],
    [
      'a JavaScript syntax error',
      'broken.mjs',
      'export default {\n  id: "x",\n  title: ,\n};\n',
      /broken\.mjs:3:10: /,
    ],
    [
      'an exception while loading',
      'throws.ts',
      'const x = 1;\nthrow new Error("no");\nexport default x;\n',
      /no \(at .*throws\.ts:2:7\)/,
    ],
  ])('%s', async (_, name, text, where) => {
    const path = write(name, text);
    const run = await runBounded(['run', '--strategy', path], { env: { DATABASE_URL: serverUrl } });
    expect(run.stderr).toMatch(where);
    expect(run.stderr).toMatch(/cannot load strategy module/);
    expect(oneLineProblem(run.stderr), run.stderr).toBe(true);
    expect(run.code).toBe(2);
  });
});

describe('a strategy module that calls process.exit ends the run with exit 2 and one line naming it', () => {
  it.each([
    ['while it loads', 'at-import.ts', 4],
    ['in setup', 'in-setup.ts', 9],
    ['from a timer it set', 'from-timer.ts', 10],
    ['in reserve, on a worker thread', 'in-reserve.ts', 10],
  ])('%s', async (_, name, line) => {
    const path = `test/fixtures/plugin-exit/${name}`;
    const reports = join(folder, `reports-${name}`);
    const run = await runBounded(
      ['run', '--strategy', path, '--scenario', 'user-limit', '--reports', reports],
      {
        timeoutMs: 60_000,
        env: { DATABASE_URL: serverUrl },
      },
    );
    expect(run.stderr).toMatch(
      new RegExp(
        `^reservebench: strategy module ${path} called process\\.exit\\(0\\) at \\S+/${name}:${line}:\\d+; `,
      ),
    );
    expect(oneLineProblem(run.stderr), run.stderr).toBe(true);
    expect(run.code).toBe(2);
  });

  it('also outside a "type": "module" package, where the module is CommonJS', async () => {
    const path = write('exits.ts', plugin('exits', 'SOLD_OUT', 'process.exit(0);'));
    const run = await runBounded(['run', '--strategy', path], { env: { DATABASE_URL: serverUrl } });
    expect(run.stderr).toMatch(
      /^reservebench: strategy module \S+exits\.ts called process\.exit\(0\) at \S+exits\.ts:1:9; /,
    );
    expect(oneLineProblem(run.stderr), run.stderr).toBe(true);
    expect(run.code).toBe(2);
  });

  it('leaves the harness its own exits: Ctrl-C of a run with a plug-in loaded exits 130', async () => {
    const child = spawn(
      process.execPath,
      cliArgv([
        'run',
        '--verbose',
        '--strategy',
        'test/fixtures/lock-first.ts',
        '--scenario',
        'contention',
        '--repeat',
        '20',
      ]),
      { env: { ...process.env, DATABASE_URL: serverUrl }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    let stderr = '';
    await new Promise<void>((resolve) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes('contention/lock-first')) resolve();
      });
    });
    child.kill('SIGINT');
    expect(await exited, stderr).toBe(130);
    expect(stderr).not.toMatch(/process\.exit/);
  });
});

describe('a strategy module that never finishes loading is refused in one line (exit 2)', () => {
  it.each([
    ['its top-level code spins', 'spins-at-import.ts', /did not finish loading within 10 s: /],
    ['its top-level await never settles', 'awaits-forever-at-import.ts', /never finishes loading: /],
  ])('%s', async (_, name, why) => {
    const path = `test/fixtures/plugin-load/${name}`;
    const run = await runBounded(['run', '--strategy', path], {
      timeoutMs: 60_000,
      env: { DATABASE_URL: serverUrl },
    });
    expect(run.timedOut).toBe(false);
    expect(run.stderr).toMatch(new RegExp(`^reservebench: strategy module ${path} `));
    expect(run.stderr).toMatch(why);
    expect(oneLineProblem(run.stderr), run.stderr).toBe(true);
    expect(run.code).toBe(2);
  });

  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)('%s ends the run while the module spins', async (signal, code) => {
    const spinning = join(folder, `spinning-${signal}`);
    const child = spawn(
      process.execPath,
      cliArgv(['run', '--strategy', 'test/fixtures/plugin-load/spins-at-import.ts']),
      {
        env: { ...process.env, DATABASE_URL: serverUrl, RESERVEBENCH_TEST_SPINNING: spinning },
        stdio: ['ignore', 'ignore', 'pipe'],
        // Its own process group, so the deadline below also stops what it left spinning.
        detached: true,
      },
    );
    const group = child.pid ?? 0;
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    // Observed, not slept on: the module has started to spin.
    for (let i = 0; i < 3000 && !existsSync(spinning); i++) await nextLook(10);
    expect(existsSync(spinning)).toBe(true);
    child.kill(signal);
    const deadline = setTimeout(() => process.kill(-group, 'SIGKILL'), 30_000);
    const exitCode = await exited;
    clearTimeout(deadline);
    expect(exitCode, stderr).toBe(code);
  });
});

describe('a payment design in a module of its own (contract: payment)', () => {
  const onConflict = new URL('../strategies/payment/on-conflict.ts', import.meta.url).href;
  /** payment-on-conflict, renamed, with `audit` changed by `auditChange` (a TypeScript expression on `a`). */
  const paymentPlugin = (id: string, auditChange: string) => `
import design from '${onConflict}';
export default {
  ...design,
  id: '${id}',
  audit: async (db: Parameters<typeof design.audit>[0]) => {
    const a = await design.audit(db);
    return ${auditChange};
  },
};
`;

  it('runs in the payment contract, and an audit that lies fails by the harness’s own read', async () => {
    const honest = write('own-payment.ts', paymentPlugin('own-payment', 'a'));
    const lying = write('lying-payment.ts', paymentPlugin('lying-payment', '{ ...a, outbox: a.outbox + 1 }'));
    const run = await runBounded(
      [
        'run',
        '--json',
        '--strategy',
        `${honest},${lying}`,
        '--scenario',
        'payment-two-workers',
        '--reports',
        join(folder, 'reports'),
      ],
      { timeoutMs: 60_000, env: { DATABASE_URL: serverUrl } },
    );
    const report = JSON.parse(run.stdout) as Report;
    const verdicts = (report.payments ?? []).map((c) => [c.strategy, c.status, c.fired ?? []]);
    expect(verdicts).toEqual([
      ['own-payment', 'pass', []],
      ['lying-payment', 'fail', ['paymentAuditMismatch']],
    ]);
    expect(report.cases).toEqual([]);
    expect(run.code, run.stderr).toBe(1);
  });

  it('is refused in one line where it is no payment design, or where only reservations run', async () => {
    const broken = write('no-pay.ts', "export default { contract: 'payment', id: 'no-pay' };\n");
    const run = await runBounded(['run', '--strategy', broken], { env: { DATABASE_URL: serverUrl } });
    expect(run.stderr).toMatch(/no-pay\.ts .*pay/);
    expect(oneLineProblem(run.stderr), run.stderr).toBe(true);
    expect(run.code).toBe(2);
    const honest = write('own-payment.ts', paymentPlugin('own-payment', 'a'));
    const explored = await runBounded(['explore', '--strategy', honest], {
      env: { DATABASE_URL: serverUrl },
    });
    expect(explored.stderr).toMatch(
      /own-payment\.ts is a payment design \(contract: 'payment'\), not a reservation strategy/,
    );
    expect(oneLineProblem(explored.stderr), explored.stderr).toBe(true);
    expect(explored.code).toBe(2);
  });
});

describe('an error a strategy leaves unhandled fails the run in one line naming where, and the run goes on', () => {
  it.each([
    ['a forgotten promise', 'forgets-a-promise.ts', 'a promise was rejected', 14],
    ['a throw from a timer', 'throws-from-a-timer.ts', 'an exception was thrown', 15],
  ])('%s', async (_, name, kind, line) => {
    const path = `test/fixtures/unhandled/${name}`;
    const reports = join(folder, `reports-${name}`);
    const run = await runBounded(
      ['run', '--json', '--strategy', `hot-row,${path}`, '--scenario', 'user-limit', '--reports', reports],
      { timeoutMs: 60_000, env: { DATABASE_URL: serverUrl } },
    );
    // One line per error: each thread that runs the design's clients loads it, and errs, once.
    const named = new RegExp(
      `^reservebench: ${kind} with nothing to handle it at ${path}:${line}:\\d+: a `,
      'gm',
    );
    const lines = run.stderr.match(named) ?? [];
    expect(lines.length, run.stderr).toBeGreaterThan(0);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.code).toBe(1);
    // The run went on to its end: every case was judged, and each passed; only the unhandled errors fail it.
    const report = JSON.parse(run.stdout) as Report;
    expect(report).toMatchObject({ ok: false, unhandledErrors: lines.length });
    expect(measured(report.cases, 'user-limit/hot-row').status).toBe('pass');
    expect(measured(report.cases, `user-limit/${name.replace('.ts', '')}`).status).toBe('pass');
  });
});
