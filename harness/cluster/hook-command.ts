/**
 * A user's hook command (`--target-restart`, `--cluster-failover`, …): run through `sh -c` with the
 * variables that say what it acts on, given `timeoutMs` to finish, and judged by its exit code alone — a
 * failure is one line naming the option and the last line the command wrote on stderr.
 */
import { spawn } from 'node:child_process';
import { oneLine } from '../errors.ts';

/** Runs a user's hook command (`sh -c`) with `env`; resolves on exit 0, else rejects with one line. */
export function runHook(
  option: string,
  command: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', command], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2000);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`${option} could not start: ${oneLine(error)}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolve();
      const last = stderr.trim().split('\n').pop()?.trim();
      const how = signal
        ? `was killed (${signal}${signal === 'SIGKILL' ? `, after ${timeoutMs} ms` : ''})`
        : `exited ${code}`;
      reject(new Error(`${option} ${how}${last ? `: ${last}` : ''}`));
    });
  });
}
