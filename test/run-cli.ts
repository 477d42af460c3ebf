/** Runs the real command line in a child process, as a user or CI would. */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Report } from '../harness/report/report.ts';
import type { CaseResult, MeasuredCase } from '../harness/verdict/case-result.ts';
import { cliArgv } from './cli-child.ts';
import { schemaErrors } from './report-schema-validator.ts';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** `input`, when given, is the child's whole stdin (a pipe, not a terminal); otherwise it has none. */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}, input?: string): Promise<CliRun> {
  const began = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, cliArgv(args), {
      env: { ...process.env, DATABASE_URL: '', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stdin.end(input ?? '');
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

/**
 * `run --json` against the shared test server, with reports in a throwaway folder. Every report a test
 * gets this way is validated against the committed JSON Schema (docs/report.schema.json) first. A run
 * explores only when its test asks (`--explore-budget N`: the shared default run, explore.test.ts): every
 * other test checks what its scenarios show, and exploring each of its designs again would only add time.
 */
export async function runJson(
  serverUrl: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
  /** A folder for the run's reports that outlives it (the shared default run's findings); else thrown away. */
  keptReports?: string,
): Promise<{ run: CliRun; report: Report }> {
  const reports = keptReports ?? mkdtempSync(join(tmpdir(), 'reservebench-reports-'));
  const exploring = args.includes('--explore-budget') ? [] : ['--explore-budget', '0'];
  try {
    const run = await runCli(['run', '--json', '--reports', reports, ...exploring, ...args], {
      ...env,
      DATABASE_URL: serverUrl,
    });
    let report: Report;
    try {
      report = JSON.parse(run.stdout) as Report;
    } catch {
      throw new Error(`no JSON on stdout (exit ${run.code}): ${run.stderr}`);
    }
    const errors = schemaErrors(report);
    if (errors.length > 0) {
      throw new Error(
        `the report does not match docs/report.schema.json:\n${errors.slice(0, 10).join('\n')}`,
      );
    }
    return { run, report };
  } finally {
    if (!keptReports) rmSync(reports, { recursive: true, force: true });
  }
}

/** The case with this id, which must have been measured (not n/a, not broken). */
export function measured(cases: readonly CaseResult[], id: string): MeasuredCase {
  const found = cases.find((c) => c.id === id);
  if (!found || (found.status !== 'pass' && found.status !== 'fail'))
    throw new Error(`case ${id} was not measured: ${JSON.stringify(found)}`);
  return found as MeasuredCase;
}
