/**
 * Where the reviewed example reports live, named once: the scripts that make and re-render them and the
 * tests that read them take the folder from here.
 */
import { fileURLToPath } from 'node:url';

export const EXAMPLE_REPORTS = fileURLToPath(new URL('../reports/examples', import.meta.url));
