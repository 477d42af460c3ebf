/** What `reservebench list` does (its options: list-options.ts), imported only when it runs. */

import type { DesignBase, ScenarioBase } from '../../contract/contract.ts';
import { CONTRACTS } from '../../contracts/index.ts';
import { EXIT } from '../../errors.ts';
import type { AnyContract } from '../../suite/suite.ts';
import type { ListArgs } from './list-options.ts';

/** A built-in design as `list` shows it: what it claims, where it runs, its knobs. */
function listed(design: DesignBase) {
  return {
    id: design.id,
    expect: design.expect,
    guarantee: design.guarantee,
    scenarios: design.expect === 'violate' ? Object.keys(design.caughtBy ?? {}) : (design.scenarios ?? 'all'),
    knobs: Object.entries(design.parameters ?? {}).map(([knob, p]) => ({ knob, ...p })),
  };
}

/** One contract's built-in designs and its scenarios. */
async function contractListing(contract: AnyContract) {
  const refs: unknown[] = await Promise.all(
    contract.designs.builtInIds.map((id: string) => contract.designs.load(id)),
  );
  return {
    id: contract.id,
    title: contract.title,
    designs: refs.map((ref) => listed(contract.designs.info(ref).design)),
    scenarios: contract.scenarios.all.map((s: ScenarioBase) => ({ id: s.id, summary: s.summary })),
  };
}

type Listing = Awaited<ReturnType<typeof contractListing>>;

function listingLines(contracts: readonly Listing[]): string[] {
  const width = Math.max(...contracts.flatMap((c) => [...c.designs, ...c.scenarios].map((s) => s.id.length)));
  const withKnobs = (s: Listing['designs'][number]) => [
    `  ${s.id.padEnd(width)}  ${s.expect.padEnd(7)}  ${s.guarantee}`,
    ...s.knobs.map(
      (k) =>
        `  ${''.padEnd(width)}  knob     --param ${s.id}.${k.knob}=N: ${k.describe}, ${k.min}–${k.max} (default ${k.default})`,
    ),
  ];
  return contracts.flatMap((c) => [
    `${c.title}`,
    '',
    `${c.id} designs (id, expect, how it stays correct):`,
    ...c.designs.flatMap(withKnobs),
    '',
    `${c.id} scenarios (run against the ${c.id} designs):`,
    ...c.scenarios.map((s) => `  ${s.id.padEnd(width)}  ${s.summary}`),
    '',
  ]);
}

export async function listCommand({ json }: ListArgs): Promise<number> {
  const contracts = await Promise.all(CONTRACTS.map(contractListing));
  if (json) {
    process.stdout.write(`${JSON.stringify({ contracts }, null, 2)}\n`);
    return EXIT.ok;
  }
  const lines = [
    ...listingLines(contracts),
    'A design can also be given as a path to a module: --strategy ./my-strategy.ts',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  return EXIT.ok;
}
