// Worker threads do not inherit the main thread's tsx hooks on Node 20: register them here, then load the
// TypeScript worker (and, through it, strategy modules given as .ts files).
import { register } from 'tsx/esm/api';

register();
const clients = await import('./client-worker.ts');

export default clients.default;
