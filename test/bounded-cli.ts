/**
 * The real command line in a child process with a deadline and a temp folder of its own: a run that should
 * have been refused can neither hang the test nor hide that it went on to start things (the embedded
 * server puts its data directory, `reservebench-pg-*`, and the run its state in the child's os.tmpdir()).
 */
import { spawn } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { cliArgv } from './cli-child.ts';

/** The child that runs many refused command lines in one process. */
const CHILD = new URL('./cli-batch-child.ts', import.meta.url).pathname;

/** Nowhere to connect to: a run that gets past its argument checks fails with exit 3 within a second. */
export const UNREACHABLE_URL = 'postgresql://nobody@127.0.0.1:1/none';

export interface BoundedRun {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** What the run left in its os.tmpdir(), tsx's compile cache aside. */
  leftInTmp: string[];
}

/**
 * A temp folder of a child's own that shares the test run's tsx compile cache (`tsx-<uid>`, which tsx keeps
 * in os.tmpdir()): with an empty one every child would compile the whole harness again.
 */
export function childTmp(prefix = 'reservebench-cli-tmp-'): string {
  const own = mkdtempSync(join(tmpdir(), prefix));
  const cache = `tsx-${process.geteuid?.() ?? userInfo().username}`;
  mkdirSync(join(tmpdir(), cache), { recursive: true });
  symlinkSync(join(tmpdir(), cache), join(own, cache));
  return own;
}

interface BoundedOptions {
  timeoutMs?: number;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

export function runBounded(args: readonly string[], options: BoundedOptions = {}): Promise<BoundedRun> {
  return runNode(cliArgv(args), options);
}

/** `node` with these arguments, bounded as runBounded says. */
function runNode(nodeArgs: readonly string[], options: BoundedOptions): Promise<BoundedRun> {
  const ownTmp = childTmp();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, nodeArgs, {
      env: { ...process.env, DATABASE_URL: '', TMPDIR: ownTmp, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group, so a deadline also stops a PostgreSQL it started.
      detached: true,
      ...(options.cwd ? { cwd: options.cwd } : {}),
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    }, options.timeoutMs ?? 15_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const leftInTmp = readdirSync(ownTmp).filter((n) => !n.startsWith('tsx-'));
      rmSync(ownTmp, { recursive: true, force: true });
      resolve({ code, stdout, stderr, timedOut, leftInTmp });
    });
  });
}

export interface Refusal {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Command lines that must be refused before they start anything, all in one child (cli-batch-child.ts,
 * the CLI's own main() per case) with a temp folder of its own and a deadline: the answers in order, and
 * what the whole child left in its temp folder.
 */
export async function runRefusals(
  cases: readonly { args: readonly string[]; env?: NodeJS.ProcessEnv; cwd?: string }[],
  options: { timeoutMs?: number } = {},
): Promise<{ answers: Refusal[]; leftInTmp: string[]; timedOut: boolean }> {
  const files = mkdtempSync(join(tmpdir(), 'reservebench-refusals-'));
  try {
    writeFileSync(join(files, 'cases.json'), JSON.stringify(cases));
    const child = await runNode(
      ['--import', 'tsx', CHILD, join(files, 'cases.json'), join(files, 'answers.json')],
      { timeoutMs: options.timeoutMs ?? 15_000 + cases.length * 3_000 },
    );
    if (child.code !== 0 || child.timedOut)
      throw new Error(
        `the refusal child exited ${child.code}${child.timedOut ? ' (timed out)' : ''}: ${child.stderr}`,
      );
    const answers = JSON.parse(readFileSync(join(files, 'answers.json'), 'utf8')) as Refusal[];
    return { answers, leftInTmp: child.leftInTmp, timedOut: child.timedOut };
  } finally {
    rmSync(files, { recursive: true, force: true });
  }
}

/** Exactly one line on stderr, no stack trace. */
export function oneLineProblem(stderr: string): boolean {
  return /^reservebench: [^\n]+\n$/.test(stderr) && !/\n\s+at /.test(stderr);
}
