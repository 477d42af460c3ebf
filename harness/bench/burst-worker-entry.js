// Worker threads do not inherit tsx's hooks on Node 20: register them here, then load the TypeScript
// burst share (and, through it, strategy modules given as .ts files).
import { register } from 'tsx/esm/api';

register();
const share = await import('./burst-share.ts');

export default share.default;
