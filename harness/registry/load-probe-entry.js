// A worker thread that only loads one strategy module and says whether it loaded (load-probe.ts). Worker
// threads do not inherit the main thread's tsx hooks on Node 20: both are registered here, the CommonJS
// ones for a module outside a "type": "module" package (see registry.ts).
import { parentPort, workerData } from 'node:worker_threads';
import { register as registerCommonJsHooks } from 'tsx/cjs/api';
import { register } from 'tsx/esm/api';

register();
registerCommonJsHooks();
const { guardExitsOf } = await import('./plugin-exit.ts');
guardExitsOf(workerData.moduleUrl, workerData.shownAs);
await import(workerData.moduleUrl).then(
  () => parentPort?.postMessage('loaded'),
  () => parentPort?.postMessage('failed'),
);
