/**
 * An order scenario, as data: the stock a case starts from, what it drives — an isolation spec of order
 * steps (order-steps.ts), or many clients' carts sent together — and what a design that holds must show.
 * The suite crosses these with order designs only. Every check named in docs/contract.md ("Orders") is
 * computed by the harness from its own reads whatever the scenario; the expectations here add the exact
 * answers the scenario makes certain.
 */
import type { StockLine } from '../../../strategies/contract.ts';
import type { OrderPausePoint, OrderPausePoints, OrderRequest } from '../../../strategies/order/contract.ts';
import type { OrderAnswer } from './order-history.ts';

export interface OrderExpectations {
  /** The exact answer counts of the case's orders (absent outcomes mean 0). */
  outcomes?: Readonly<Record<string, number>>;
  /** Per step name (a spec) the exact answer the step gives. */
  answers?: Readonly<Record<string, OrderAnswer>>;
  /** What `remaining(sku)` reads at the end, per sku. */
  remaining?: Readonly<Record<string, number>>;
  /** Per design id, the steps that must be seen waiting on another session (pg_blocking_pids), and no other. */
  blocking?: Readonly<Record<string, readonly string[]>>;
}

interface OrderScenarioBase {
  contract: 'order';
  id: string;
  /** One line on what it drives, for `list` and the report. */
  summary: string;
  /** The file the scenario was loaded from (a `file:` URL), for the report's sources. */
  source?: string;
  /**
   * Every design, negative controls too, runs it and is judged as if it claimed to hold: a spec file a
   * user runs (`run --spec`), or a program the explorer wrote, where any failing check is what it shows.
   */
  everyDesignHolds?: true;
  /**
   * A program the explorer generated: a schedule that asks a blocked session for a step is refused at
   * once (invalid, not a finding), and an ORDER … UNTIL that ended before its point breaks no claim.
   */
  explored?: true;
  stock: readonly StockLine[];
  /**
   * The pause points the scenario holds (or kills) an order at, in preference order: the first one the
   * design declares for `order` is the one used; a design declaring none of them is n/a there.
   */
  holdAt?: readonly OrderPausePoint[];
  /** Pause points of the other operations the scenario holds them at; a design lacking one is n/a there. */
  requires?: Omit<Partial<OrderPausePoints>, 'order'>;
  /**
   * Why no program the explorer writes can be this scenario (its programs only order): a control caught
   * only in such scenarios is out of the explorer's reach, and its explore case is n/a with this reason.
   */
  beyondExplorer?: string;
  expect: OrderExpectations;
}

/** A scenario written as an isolation spec of order steps, run by the interleaving engine. */
export interface OrderSpecScenario extends OrderScenarioBase {
  /** The spec, given the pause point the case holds at; it lists exactly one permutation, the one judged. */
  spec(holdAt: OrderPausePoint | undefined): string;
}

/** Many clients, each on a session of its own, connected first and started together. */
export interface OrderClientsScenario extends OrderScenarioBase {
  /**
   * One order per client. With a `holdAt` point the design declares, every client is held there until all
   * have reached it (or ended before it), then all go on.
   */
  clients: readonly OrderRequest[];
}

export type OrderScenario = OrderSpecScenario | OrderClientsScenario;

export function defineOrderScenario<S extends OrderScenario>(scenario: S): S {
  return scenario;
}

/** The first of the scenario's hold points the design declares for `order`. */
export function holdPointFor(
  scenario: Pick<OrderScenario, 'holdAt'>,
  declared: readonly OrderPausePoint[],
): OrderPausePoint | undefined {
  return scenario.holdAt?.find((point) => declared.includes(point));
}
