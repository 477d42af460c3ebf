/**
 * The crash child started through tsx: a plug-in design or one in SQL, loaded and checked through the
 * registry of its contract as in the parent, or a built-in one imported as it is (child-design.ts). A built-in design
 * usually runs in a bundle of this child instead (child-bundle.ts); what the child does is child-run.ts.
 */
import { childDesign } from './child-design.ts';
import { runCrashChild } from './child-run.ts';

await runCrashChild(childDesign);
