/**
 * A spec file of order steps as an order scenario (`reservebench run --spec FILE`), as case/spec-file.ts
 * reads one for every contract whose designs make their own tables: against every order design run, each
 * judged as if it claimed to hold. The stock it starts from is its one `# stock <sku>:<total>,…` comment
 * line (the design's setup loads it); a design that declares none of the points its ORDER steps stop at
 * sits it out (n/a).
 */
import type { StockLine } from '../../../../strategies/contract.ts';
import type { OrderPausePoint } from '../../../../strategies/order/contract.ts';
import { specFileScenario } from '../../../case/spec-file.ts';
import { Errors } from '../../../errors.ts';
import { type ParsedSpec, parseSpec } from '../../../interleaving/spec-parser.ts';
import type { OrderSpecScenario } from '../order-scenario.ts';
import { ORDER_SPEC_VERBS, orderStepOf } from '../spec/order-verbs.ts';

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
  const said = { spec: 'an order spec', design: 'the order design', stepOf: orderStepOf };
  const scenario = specFileScenario<OrderPausePoint>(spec, text, file, said);
  return { contract: 'order', ...scenario, stock: stockOf(text, file) };
}

/** A spec file's text as a order scenario (`run --spec FILE`, and the explorer's programs and replays). */
export function readOrderSpec(text: string, file: string): OrderSpecScenario {
  return orderSpecFile(parseSpec(text, file, [ORDER_SPEC_VERBS]), text, file);
}
