/**
 * Screenshots of the committed example reports, written beside them: the run's matrix, a caught control's
 * matrix cell opened on its case, and the bucket sweep's chart (example-shots.ts takes them, and
 * test/html-report.test.ts checks the same shots). Run after `npm run examples:render` changes how they look.
 *
 *   npm run examples:screenshots
 */
import { fileURLToPath } from 'node:url';
import { shootExamples } from './example-shots.ts';

const examples = fileURLToPath(new URL('../reports/examples/', import.meta.url));
const into = process.argv[2];
const shots = await shootExamples((example) => into ?? `${examples}${example}`);
for (const file of Object.values(shots.files)) console.error(`example-screenshots: wrote ${file}`);
if (shots.problems.length > 0) {
  console.error(`example-screenshots: ${shots.problems.join('; ')}`);
  process.exitCode = 1;
}
