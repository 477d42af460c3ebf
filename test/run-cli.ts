/** Runs the real command line in a child process, as a user or CI would. */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Report } from '../harness/report/report.ts';
import type { CaseResult, MeasuredCase } from '../harness/verdict/case-result.ts';

export const BIN = new URL('../bin/reservebench.js', import.meta.url).pathname;

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  const began = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: { ...process.env, DATABASE_URL: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, ms: performance.now() - began }));
  });
}

/** `run --json` against the shared test server, with reports in a throwaway folder. */
export async function runJson(serverUrl: string, args: string[]): Promise<{ run: CliRun; report: Report }> {
  const reports = mkdtempSync(join(tmpdir(), 'reservebench-reports-'));
  try {
    const run = await runCli(['run', '--json', '--database-url', serverUrl, '--reports', reports, ...args]);
    try {
      return { run, report: JSON.parse(run.stdout) as Report };
    } catch {
      throw new Error(`no JSON on stdout (exit ${run.code}): ${run.stderr}`);
    }
  } finally {
    rmSync(reports, { recursive: true, force: true });
  }
}

/** The case with this id, which must have been measured (not n/a, not broken). */
export function measured(cases: readonly CaseResult[], id: string): MeasuredCase {
  const found = cases.find((c) => c.id === id);
  if (!found || (found.status !== 'pass' && found.status !== 'fail'))
    throw new Error(`case ${id} was not measured: ${JSON.stringify(found)}`);
  return found as MeasuredCase;
}
