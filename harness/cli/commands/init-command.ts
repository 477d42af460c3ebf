/**
 * `reservebench init`: a starting point in a team's own repository — a design file copied from a built-in
 * one (design-starter.ts) and a CI workflow that gates on it. It never overwrites a file (exit 2 with one
 * line naming it) unless told to with --force.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname } from 'node:path';
import { builtInFile, loadStrategy } from '../../contracts/reservation/designs/registry.ts';
import { Errors, EXIT } from '../../errors.ts';
import { shown } from '../cli-arguments.ts';
import { defineCommand, flag, type ParsedOf } from '../command-definition.ts';
import { starterDesign, starterWorkflow } from '../design-starter.ts';
import { text } from '../option-types.ts';

const OPTIONS = {
  from: text('the built-in design to start from, one that holds', { form: 'ID', default: 'hot-row' }),
  design: text('the design file to write', {
    form: 'FILE',
    blank: 'must name a file',
    default: 'my-design.ts',
  }),
  workflow: text('the workflow file to write', {
    form: 'FILE',
    blank: 'must name a file',
    default: '.github/workflows/reservebench.yml',
  }),
  force: flag('overwrite the files if they exist'),
};

export type InitArgs = ParsedOf<typeof OPTIONS>;

function writeNew(file: string, text: string, force: boolean): void {
  if (existsSync(file) && !force) throw Errors.badInput(`${shown(file)} exists; --force overwrites it`);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
}

export async function initCommand(args: InitArgs): Promise<number> {
  const { from, design, workflow } = args;
  const file = builtInFile(from);
  if (!file || (await loadStrategy(from)).strategy.expect !== 'hold')
    throw Errors.badInput(`--from must name a built-in design that holds, got ${shown(from)}`);
  if (extname(design) !== '.ts') throw Errors.badInput(`--design must name a .ts file, got ${shown(design)}`);
  const id = basename(design, '.ts');
  writeNew(design, starterDesign(readFileSync(file, 'utf8'), from, id), args.force);
  writeNew(workflow, starterWorkflow(design.replace(/^\.\//, '')), args.force);
  process.stdout.write(
    [
      `wrote ${design} (from ${from}: fill in its header) and ${workflow}`,
      `run it: npx reservebench run --strategy ./${design.replace(/^\.\//, '')}`,
      '',
    ].join('\n'),
  );
  return EXIT.ok;
}

export const INIT = defineCommand({
  name: 'init',
  describe: 'write a starting design file (from a built-in one) and a CI workflow that gates on it',
  options: OPTIONS,
  run: initCommand,
});
