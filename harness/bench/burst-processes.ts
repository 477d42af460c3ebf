/**
 * Starts the child processes of a burst, one order each, and collects their records. A child that fails
 * or exits without answering fails the burst with its one-line reason; `stop` kills those still running
 * (the release never came, or the parent gave up).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { BurstChildReply } from './burst-child.ts';
import type { BurstOrder, BurstRecord } from './burst-task.ts';

const CHILD = new URL('./burst-child.ts', import.meta.url).pathname;
const TSX_LOADER = import.meta.resolve('tsx');

export interface BurstProcesses {
  /** Every record of every child, once all have answered. */
  records: Promise<BurstRecord[]>;
  /** True once some child has exited or failed. */
  ended(): boolean;
  stop(): void;
}

function childRecords(child: ChildProcess, order: BurstOrder, onEnd: () => void): Promise<BurstRecord[]> {
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise<BurstRecord[]>((resolve, reject) => {
    child.once('message', (reply: BurstChildReply) => {
      if ('records' in reply) resolve(reply.records);
      else reject(new Error(`a burst process failed: ${reply.error}`));
    });
    child.once('exit', (code, signal) => {
      onEnd();
      const why = stderr.trim().split('\n')[0] ?? '';
      reject(
        new Error(`a burst process exited (${signal ?? code}) without its records${why ? `: ${why}` : ''}`),
      );
    });
    child.send(order);
  });
}

export function startBurstProcesses(orders: readonly BurstOrder[]): BurstProcesses {
  let ended = false;
  const children = orders.map(() =>
    spawn(process.execPath, ['--import', TSX_LOADER, CHILD], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] }),
  );
  const all = Promise.all(
    children.map((child, i) => {
      const order = orders[i];
      if (!order) throw new Error('a burst process without its order');
      return childRecords(child, order, () => {
        ended = true;
      });
    }),
  );
  return {
    records: all.then((parts) => parts.flat()),
    ended: () => ended,
    stop: () => {
      for (const child of children)
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
