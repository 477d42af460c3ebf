/** What `reservebench init` does (its options: init-options.ts), imported only when it runs. */

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Errors, EXIT } from '../../errors.ts';
import type { AnyContract } from '../../suite/suite.ts';
import { shown } from '../cli-arguments.ts';
import { firstContractWith } from '../contract-selection.ts';
import type { InitArgs } from './init-options.ts';

/** The built-in design's file, where `from` names one of the contract's that holds. */
async function heldBuiltInFile(contract: AnyContract, from: string): Promise<string | undefined> {
  if (!contract.designs.builtInIds.includes(from)) return undefined;
  const info = contract.designs.info(await contract.designs.load(from));
  return info.design.expect === 'hold' ? fileURLToPath(info.moduleUrl) : undefined;
}

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
