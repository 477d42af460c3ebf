/**
 * A plug-in module is loaded in a worker thread first, with a deadline, and only then in the main thread.
 * Loading runs the module's top-level code: a loop there would hold the main thread, where no deadline and
 * no Ctrl-C or SIGTERM handler could run again (only kill -9 would end the run), and a top-level await
 * that never settles would end the process with Node's exit 13 and no word. In a worker the main thread
 * stays free: it waits for the deadline and for signals, and refuses such a module in one line.
 */
import { Worker } from 'node:worker_threads';
import { Errors } from '../errors.ts';

/** Far more than loading any module takes here (tsx compiles a file in milliseconds). */
const LOAD_DEADLINE_MS = 10_000;

type Probed = 'loaded' | 'failed' | 'stopped' | 'late';

function probe(moduleUrl: string, shownAs: string): Promise<Probed> {
  const worker = new Worker(new URL('./load-probe-entry.js', import.meta.url), {
    workerData: { moduleUrl, shownAs },
    // What the module prints while it loads is printed once, by the main thread's own import.
    stdout: true,
    stderr: true,
  });
  worker.stdout.resume();
  worker.stderr.resume();
  return new Promise<Probed>((resolve) => {
    const deadline = setTimeout(() => resolve('late'), LOAD_DEADLINE_MS);
    const settle = (probed: Probed) => {
      clearTimeout(deadline);
      resolve(probed);
    };
    worker.once('message', (message) => settle(message === 'loaded' ? 'loaded' : 'failed'));
    worker.once('error', () => settle('failed'));
    // Its thread ran out of work before the import finished: nothing will ever settle what it awaits.
    worker.once('exit', () => settle('stopped'));
  }).finally(() => worker.terminate());
}

/**
 * Resolves once the module has loaded in a worker, or failed to (the main thread's import then says why,
 * as for any module); throws a one-line refusal for a module that does not finish loading.
 */
export async function probeLoading(moduleUrl: string, shownAs: string): Promise<void> {
  const probed = await probe(moduleUrl, shownAs);
  if (probed === 'late') {
    throw Errors.badInput(
      `strategy module ${shownAs} did not finish loading within ${LOAD_DEADLINE_MS / 1000} s: its top-level code loops or waits (a strategy only defines itself at import)`,
    );
  }
  if (probed === 'stopped') {
    throw Errors.badInput(
      `strategy module ${shownAs} never finishes loading: its top-level await waits for something that never settles`,
    );
  }
}
