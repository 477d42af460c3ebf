/**
 * A spec file as a scenario against a strategy (`reservebench run --spec FILE`, and the explorer's
 * replays): its sessions and its one permutation, and the stock its `setup { STOCK sku total … }` block
 * gives the strategy's setup. Nothing is expected of it but what every case must hold.
 */
import { basename, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { StockLine } from '../../../../strategies/contract.ts';
import { Errors } from '../../../errors.ts';
import { parseSpec } from '../../../interleaving/spec-parser.ts';
import { RESERVATION_VERBS } from '../spec/reservation-verbs.ts';
import type { InterleavingScenario } from './scenario.ts';
import { specNeeds } from './spec-needs.ts';

/** `STOCK sku-a 2 sku-b 1` → the stock lines; undefined for any other setup block (SQL). */
export function stockOf(setup: string): { sku: string; total: number }[] | undefined {
  const words = setup.trim().split(/\s+/);
  if (words[0]?.toUpperCase() !== 'STOCK') return undefined;
  const pairs = words.slice(1);
  const lines: { sku: string; total: number }[] = [];
  for (let i = 0; i < pairs.length; i += 2) {
    const total = Number(pairs[i + 1]);
    if (!pairs[i] || !Number.isSafeInteger(total) || total < 0)
      throw Errors.badInput(`STOCK takes sku and total pairs, got "${setup.trim()}"`);
    lines.push({ sku: pairs[i] as string, total });
  }
  return lines;
}

/**
 * The scenario a program is: its spec, its stock, nothing expected but what every case must hold; the
 * optional operations and pause points its steps use, so a design without one is not covered by it.
 */
export function programScenario(id: string, spec: string, stock: readonly StockLine[]): InterleavingScenario {
  const steps = parseSpec(spec, `${id}.spec`, [RESERVATION_VERBS]).sessions.flatMap((s) =>
    s.steps.map((x) => x.step),
  );
  const { operations, requires } = specNeeds(steps);
  return {
    id,
    kind: 'interleaving',
    summary: 'a program the explorer generated',
    input: { clients: 1, stock: [...stock], user: 'u1', ttlMs: 60_000 },
    spec,
    everyDesignHolds: true,
    ...(operations.length > 0 ? { operations } : {}),
    ...(requires.length > 0 ? { requires } : {}),
    expect: {},
  };
}

export function specScenario(text: string, file: string): InterleavingScenario {
  const spec = parseSpec(text, file, [RESERVATION_VERBS]);
  const stocks = spec.setup.map(stockOf).filter((s) => s !== undefined);
  const stock = stocks[0];
  if (!stock || stocks.length > 1 || stocks.length !== spec.setup.length)
    throw Errors.badInput(
      `${file}: a strategy spec needs exactly one setup block, \`setup { STOCK sku total … }\``,
    );
  if (spec.permutations.length !== 1)
    throw Errors.badInput(`${file}: a strategy spec lists exactly one permutation (the one it runs)`);
  const scenario = programScenario(basename(file).replace(/\.spec$/, ''), text, stock);
  return { ...scenario, source: pathToFileURL(resolve(file)).href };
}
