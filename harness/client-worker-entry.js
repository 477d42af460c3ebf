// Worker threads do not inherit the main thread's tsx hooks on Node 20: register them here, then load the
// TypeScript workers (and, through them, strategy modules given as .ts files).
import { register } from 'tsx/esm/api';

register();
const clients = await import('./client-worker.ts');
const bench = await import('./bench/bench-worker.ts');

export default clients.default;
export const runBench = bench.default;
