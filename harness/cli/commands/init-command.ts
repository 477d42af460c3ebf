/**
 * `reservebench init`: a starting point in a team's own repository — a design file copied from a built-in
 * one and a CI workflow that gates on it, as the contract's starter (Contract.starter) writes them. It never overwrites a file (exit 2 with one
 * line naming it) unless told to with --force.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Errors, EXIT } from '../../errors.ts';
import type { AnyContract } from '../../suite/suite.ts';
import { shown } from '../cli-arguments.ts';
import { defineCommand, flag, type ParsedOf } from '../command-definition.ts';
import { firstContractWith } from '../contract-selection.ts';
import { text } from '../option-types.ts';

/** The built-in design's file, where `from` names one of the contract's that holds. */
async function heldBuiltInFile(contract: AnyContract, from: string): Promise<string | undefined> {
  if (!contract.designs.builtInIds.includes(from)) return undefined;
  const info = contract.designs.info(await contract.designs.load(from));
  return info.design.expect === 'hold' ? fileURLToPath(info.moduleUrl) : undefined;
}

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
  // The contract `init` starts a design of: the first one listed that has a starter.
  const contract = firstContractWith('starter');
  const file = await heldBuiltInFile(contract, from);
  if (!file) throw Errors.badInput(`--from must name a built-in design that holds, got ${shown(from)}`);
  if (extname(design) !== '.ts') throw Errors.badInput(`--design must name a .ts file, got ${shown(design)}`);
  const id = basename(design, '.ts');
  writeNew(design, contract.starter.design(readFileSync(file, 'utf8'), from, id), args.force);
  writeNew(workflow, contract.starter.workflow(design.replace(/^\.\//, '')), args.force);
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
