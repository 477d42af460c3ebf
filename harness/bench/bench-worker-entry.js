// Worker threads do not inherit the main thread's tsx hooks on Node 20: register them here, then load the
// TypeScript bench worker (and, through it, strategy modules given as .ts files).
import { register } from 'tsx/esm/api';

register();
const bench = await import('./bench-worker.ts');

export default bench.default;
