/**
 * `node --import` this file: every module the process loads through the ES module loader (each package's
 * entry among them, CommonJS ones too) is appended to the file RESERVEBENCH_LOAD_LOG names, one URL a line.
 * Plain JavaScript, in the loader's own hook thread: it must run before anything else is loaded.
 */
import { appendFileSync } from 'node:fs';
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

let logFile;

export function initialize(file) {
  logFile = file;
}

export async function load(url, context, nextLoad) {
  appendFileSync(logFile, `${url}\n`);
  return nextLoad(url, context);
}

// The hook thread imports this file too: only the process's own start registers it.
if (isMainThread) register(import.meta.url, { data: process.env.RESERVEBENCH_LOAD_LOG });
