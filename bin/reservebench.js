#!/usr/bin/env node
// Runs the TypeScript sources directly through tsx, so `npm ci` is the only build step.
import { register } from 'tsx/esm/api';

register();
await import('../harness/cli/cli.ts');
