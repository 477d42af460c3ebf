/**
 * A spec file of order steps as an order scenario (`reservebench run --spec FILE`), as every contract reads
 * one: its sessions and its one permutation, against every order design run, each judged as if it
 * claimed to hold (controls too). The stock it starts from is its one `# stock <sku>:<total>,…` comment
 * line (the design's setup loads it; the spec has no setup of its own); nothing is expected of it but what
 * every order case must hold. A design that declares none of the points its ORDER steps stop at sits it
 * out (n/a).
 */
import { basename, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { StockLine } from '../../../../strategies/contract.ts';
import type { OrderPausePoint } from '../../../../strategies/order/contract.ts';
import { Errors } from '../../../errors.ts';
import type { ParsedSpec } from '../../../interleaving/spec-parser.ts';
import type { OrderSpecScenario } from '../order-scenario.ts';
import { orderStepOf } from '../spec/order-verbs.ts';

const STOCK_LINE = /^#\s*stock\s+(\S+)\s*$/m;

/** The `# stock sku-a:10,sku-b:10` line's stock; one line (exit 2) when there is none or it is malformed. */
export function stockOf(text: string, file: string): StockLine[] {
  const [, list] = STOCK_LINE.exec(text) ?? [];
  if (!list)
    throw Errors.badInput(`${file}: an order spec names its stock in a line "# stock <sku>:<total>,…"`);
  return list.split(',').map((item) => {
    const [, sku, total] = /^([A-Za-z0-9._:@-]+):([0-9]+)$/.exec(item) ?? [];
    if (!sku || !total) throw Errors.badInput(`${file}: "${item}" in its stock line is no <sku>:<total>`);
    return { sku, total: Number(total) };
  });
}

export function orderSpecFile(spec: ParsedSpec, text: string, file: string): OrderSpecScenario {
  if (spec.setup.length > 0 || spec.teardown !== undefined)
    throw Errors.badInput(
      `${file}: an order spec has no setup or teardown; the order design's setup makes its tables`,
    );
  if (spec.permutations.length !== 1)
    throw Errors.badInput(`${file}: a strategy spec lists exactly one permutation (the one it runs)`);
  const held = new Set<OrderPausePoint>();
  for (const { step } of spec.sessions.flatMap((s) => s.steps)) {
    const until = orderStepOf(step)?.until;
    if (until) held.add(until as OrderPausePoint);
  }
  const name = basename(file);
  return {
    contract: 'order',
    id: name.replace(/\.spec$/, ''),
    source: pathToFileURL(resolve(file)).href,
    summary: `the spec ${name}`,
    stock: stockOf(text, file),
    ...(held.size > 0 ? { holdAt: [...held] } : {}),
    spec: () => text,
    everyDesignHolds: true,
    expect: {},
  };
}
