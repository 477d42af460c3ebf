/**
 * A strategy module may not end the run: a plug-in that calls `process.exit` (at import, in setup, from a
 * timer it set) would end it with a code of its choosing — 0, a pass, with no output and no report. Once a
 * plug-in is loaded, `process.exit` from its code ends the run with exit 2 and one line naming the module
 * and where it called. In a worker thread, where `process.exit` would end only the thread, the line goes
 * to the main thread, which ends the run, and the call throws so that the plug-in goes no further.
 *
 * Whose exit it is, is read from the stack: the harness's own exits (the command line's end, the exit
 * hooks after a signal) come from its own files, or from no file at all once the run is interrupted.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BroadcastChannel, isMainThread } from 'node:worker_threads';
import { EXIT } from '../errors.ts';
import { wasInterrupted } from '../interrupted.ts';
import { type CodeFrame, codeFrames } from './stack-frames.ts';

const CHANNEL = 'reservebench: a strategy module called process.exit';

/**
 * Where the harness's own code lives under `root`: its sources and the packages it runs on. Node names a
 * package's frames by its real path, so a node_modules that is a symbolic link (a shared install, pnpm's
 * store) counts where it leads as well as where it is.
 */
export function ownCodeFolders(root: URL): string[] {
  const folders = ['harness/', 'bin/', 'node_modules/'].map((folder) => new URL(folder, root).href);
  try {
    const packages = pathToFileURL(`${realpathSync(fileURLToPath(new URL('node_modules', root)))}/`).href;
    return folders.includes(packages) ? folders : [...folders, packages];
  } catch {
    return folders; // no node_modules here (a bundle carries its packages inside)
  }
}

const OWN_CODE = ownCodeFolders(new URL('../../', import.meta.url));

/** Plug-in modules loaded in this thread, by file URL: the name the user gave each. */
const plugins = new Map<string, string>();
/** The real exit, taken when this module loads, before any plug-in can have replaced it. */
const exitProcess = process.exit.bind(process);
let guarding = false;

/** An exit a plug-in called: its code, and the nearest place in a file it was called from, if any. */
interface PluginExit {
  /** The code as given, shown: a plug-in may pass anything. */
  code: string;
  frame: CodeFrame | undefined;
}

/** The exit a plug-in called, or undefined when the exit is the harness's own. */
function pluginExit(code: unknown, stack: string): PluginExit | undefined {
  const frame = codeFrames(stack)[0];
  if (frame && OWN_CODE.some((own) => frame.url.startsWith(own))) return undefined;
  if (!frame && isMainThread && wasInterrupted()) return undefined;
  const shown =
    typeof code === 'number' || typeof code === 'string'
      ? String(code)
      : code === undefined
        ? ''
        : typeof code;
  return { code: shown, frame };
}

/** The run's last line, naming the module as the user gave it (known on the main thread). */
function exitLine({ code, frame }: PluginExit): string {
  const module = frame
    ? (plugins.get(frame.url) ?? fileURLToPath(frame.url))
    : [...plugins.values()].join(', ');
  const where = frame ? ` at ${frame.at}` : '';
  return `strategy module ${module} called process.exit(${code})${where}; a strategy answers or throws, it never ends the run`;
}

function endRun(exit: PluginExit): never {
  process.stderr.write(`reservebench: ${exitLine(exit)}\n`);
  return exitProcess(EXIT.badInput);
}

function guardedExit(code?: number | string): never {
  const holder = { stack: '' };
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 50;
  Error.captureStackTrace(holder, guardedExit);
  Error.stackTraceLimit = limit;
  const exit = pluginExit(code, holder.stack);
  if (exit === undefined) return exitProcess(code);
  if (isMainThread) return endRun(exit);
  const channel = new BroadcastChannel(CHANNEL);
  channel.postMessage(exit);
  channel.close();
  throw new Error(exitLine(exit));
}

/** Called before a plug-in module is imported in this thread: from then on its exits end the run. */
export function guardExitsOf(moduleUrl: string, shownAs: string): void {
  plugins.set(moduleUrl, shownAs === moduleUrl ? fileURLToPath(moduleUrl) : shownAs);
  if (guarding) return;
  guarding = true;
  process.exit = guardedExit;
  if (isMainThread) {
    const channel = new BroadcastChannel(CHANNEL);
    channel.onmessage = (event) => endRun((event as { data: PluginExit }).data);
    channel.unref();
  }
}
