#!/usr/bin/env node
// Runs the command line from a bundle of its TypeScript sources, built again whenever they change
// (cli-bundle.js), or, where there can be none, the sources themselves through tsx: `npm ci` stays the
// only build step either way.
import { cliBundle } from './cli-bundle.js';

// A stack printed for RESERVEBENCH_DEBUG names the .ts files, not the bundle's lines.
if (process.env.RESERVEBENCH_DEBUG) process.setSourceMapsEnabled(true);
const bundle = await cliBundle();
if (bundle) await import(bundle);
else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../harness/cli/cli.ts');
}
