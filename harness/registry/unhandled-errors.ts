/**
 * A promise rejected with nothing to handle it, or an exception thrown where nothing catches it (a design's
 * forgotten promise, a throw from its timer), would end the process by Node's default: a stack trace, no
 * report, and every case after it lost. The run goes on instead — each answer the harness got is still the
 * answer it got, and every case has its deadline — says so in one line naming the file and line the error
 * came from, and exits 1 at its end: a run in which an error went unhandled is not a pass.
 */
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BroadcastChannel, isMainThread } from 'node:worker_threads';
import { codeFrames } from './stack-frames.ts';

/** A worker thread's clients run designs too: their lines reach the main thread, which counts them. */
const CHANNEL = 'reservebench: an error went unhandled';
const PACKAGES = '/node_modules/';
/** Each distinct error (its origin and message) once: every thread that loads a design may make it again. */
const seen = new Set<string>();

/** Where an error came from: the nearest frame outside the packages (a design's own file), if any. */
function origin(error: unknown): string {
  const stack = error instanceof Error ? (error.stack ?? '') : '';
  const frames = codeFrames(stack);
  const frame = frames.find((f) => !f.url.includes(PACKAGES)) ?? frames[0];
  if (!frame) return '';
  const path = fileURLToPath(frame.url);
  const shown = path.startsWith(process.cwd()) ? relative(process.cwd(), path) : path;
  return ` at ${frame.at.replace(path, shown)}`;
}

function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n')[0] ?? '';
}

function counted(line: string): void {
  if (seen.has(line)) return;
  seen.add(line);
  process.stderr.write(line);
}

function report(kind: string, error: unknown): void {
  const line = `reservebench: ${kind} with nothing to handle it${origin(error)}: ${messageOf(error)}; the run goes on and will exit 1\n`;
  if (isMainThread) {
    counted(line);
    return;
  }
  const channel = new BroadcastChannel(CHANNEL);
  channel.postMessage(line);
  channel.close();
}

/**
 * From now on an unhandled rejection or uncaught exception in this thread is named instead of ending it;
 * on the main thread (called first there) it is counted, also when a worker thread reports it.
 */
export function countUnhandledErrors(): void {
  process.on('unhandledRejection', (reason) => report('a promise was rejected', reason));
  process.on('uncaughtException', (error) => report('an exception was thrown', error));
  if (!isMainThread) return;
  const channel = new BroadcastChannel(CHANNEL);
  channel.onmessage = (event) => counted(String((event as { data: unknown }).data));
  channel.unref();
}

/** How many distinct errors went unhandled so far: any makes the run's exit code 1. */
export function unhandledErrorCount(): number {
  return seen.size;
}
