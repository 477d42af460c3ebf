/**
 * One order case: an order scenario against an order design — n/a when the design sits it out (a control
 * outside the scenarios that catch it, a refused capability, no pause point to hold) — driven on a schema
 * of its own (a spec by the interleaving engine, with `--permutations all` each other order on a schema
 * of its own too; many clients together), read back through the design in one snapshot, and judged.
 * A failure at any stage makes the case broken, naming the stage.
 */
import type { OrderDesign, OrderPausePoint } from '../../../../strategies/order/contract.ts';
import { refusedNeed, sitsOutByChoice } from '../../../case/applicability.ts';
import { CaseDeadline, withinCaseDeadline } from '../../../case/case-deadline.ts';
import { keepsTables, onCaseSchema } from '../../../case/case-schema.ts';
import { specInEveryOrder } from '../../../case/permutations.ts';
import type { CaseSettings } from '../../../contract/case-settings.ts';
import type { RunDatabase } from '../../../database/database.ts';
import type { CaseConnection } from '../../../driver/case-connection.ts';
import { harnessNow, measureClockMapping } from '../../../history/recorder.ts';
import type { OrderDesignRef } from '../designs/order-registry.ts';
import { readOrdersBack } from '../order-final-read.ts';
import { heldBySku } from '../order-invariants.ts';
import { holdPointFor, type OrderScenario, type OrderSpecScenario } from '../order-scenario.ts';
import { judgeOrderCase } from '../verdict/order-case-judgement.ts';
import type { OrderCaseResult } from '../verdict/order-case-result.ts';
import { orderCaseHistory } from '../verdict/order-history-check.ts';
import { driveOrderClients } from './order-clients-drive.ts';
import { driveOrderSpec, type OrderDriven, orderSpecOrders } from './order-spec-drive.ts';

/** Why the design sits the scenario out, or undefined when the case is to be driven. */
function sitsOut(design: OrderDesign, scenario: OrderScenario, db: RunDatabase): string | undefined {
  const chosen = sitsOutByChoice(design, scenario);
  if (chosen) return chosen;
  const refused = refusedNeed(design.needs ?? [], db.capabilities);
  if (refused) return refused;
  if ('spec' in scenario && scenario.holdAt && !holdPointFor(scenario, design.pausePoints.order))
    return `not covered: ${scenario.id} — order declares no pause point ${scenario.holdAt.join(' or ')}`;
  for (const [operation, points] of Object.entries(scenario.requires ?? {})) {
    const declared = design.pausePoints[operation as 'release' | 'expire'] ?? [];
    const missing = (points ?? []).filter((p) => !declared.includes(p));
    if (missing.length > 0)
      return `not covered: ${scenario.id} — ${operation} declares no pause point ${missing.join(', ')}`;
  }
  return undefined;
}

type Identity = Pick<OrderCaseResult, 'id' | 'contract' | 'scenario' | 'strategy' | 'expect'>;

export async function runOrderCase(
  db: RunDatabase,
  ref: OrderDesignRef,
  scenario: OrderScenario,
  settings: CaseSettings,
  /** `#n` for the n-th of `run --repeat`'s runs of the case, else empty. */
  repetition = '',
): Promise<OrderCaseResult> {
  const design: OrderDesign = scenario.everyDesignHolds ? { ...ref.design, expect: 'hold' } : ref.design;
  const identity: Identity = {
    id: `${scenario.id}/${design.id}${repetition}`,
    contract: 'order',
    scenario: scenario.id,
    strategy: design.id,
    expect: design.expect,
  };
  const skipped = sitsOut(design, scenario, db);
  if (skipped)
    return { ...identity, status: 'n/a', outcomes: {}, boundary: `n/a: ${skipped}`, reason: skipped };
  const holdAt = holdPointFor(scenario, design.pausePoints.order);
  if ('spec' in scenario) return runOrderSpec(db, design, scenario, settings, identity, holdAt);
  return onSchema(db, design, scenario, settings, identity, (connection) =>
    driveOrderClients(connection, design, scenario, holdAt),
  );
}

/** The spec's listed order, judged whole; with `--permutations all` every other order on fresh tables. */
async function runOrderSpec(
  db: RunDatabase,
  design: OrderDesign,
  scenario: OrderSpecScenario,
  settings: CaseSettings,
  identity: Identity,
  holdAt: OrderPausePoint | undefined,
): Promise<OrderCaseResult> {
  return specInEveryOrder(orderSpecOrders(scenario, holdAt), settings, (permutation, order, listed) =>
    onSchema(db, design, scenario, order, identity, (connection) =>
      driveOrderSpec(connection, design, scenario, { permutation, listed, timeoutMs: settings.timeoutMs }),
    ),
  );
}

/** The case on a schema of its own: the design's tables, the drive, the final read, the verdict. */
function onSchema(
  db: RunDatabase,
  design: OrderDesign,
  scenario: OrderScenario,
  settings: CaseSettings,
  identity: Identity,
  drive: (connection: CaseConnection) => Promise<OrderDriven>,
): Promise<OrderCaseResult> {
  return onCaseSchema<OrderCaseResult>(db, settings, {
    name: `${scenario.id}_${design.id}`,
    work: async (schema, at) => {
      await db.admin.query(`SET search_path TO ${schema}`);
      await design.setup(db.admin, scenario.stock);
      const clock = await measureClockMapping(db.admin);
      at('driving the orders');
      const connection = { connectionString: db.connectionString, schema };
      const driven = await withinCaseDeadline(drive(connection), new CaseDeadline(settings.timeoutMs), db);
      at('the final read');
      const readFrom = harnessNow();
      const read = await readOrdersBack(db.admin, design, driven.keys, scenario.stock);
      const history = orderCaseHistory(driven.answered, read, { readFrom, readTo: harnessNow() }, clock);
      const judged = judgeOrderCase(design, scenario, driven, read, history);
      const held = heldBySku(read);
      const stock = Object.fromEntries(
        [...read.skus].map(([sku, s]) => [sku, { ...s, held: held.get(sku) ?? 0 }]),
      );
      return {
        ...identity,
        ...judged,
        stock,
        ...(driven.steps
          ? { steps: driven.steps.map(({ sentAt: _, completedAt: __, ...shown }) => shown) }
          : {}),
        ...(keepsTables(settings, judged.status) ? { keptSchema: schema } : {}),
      };
    },
    broken: (problem, keptSchema) => ({
      ...identity,
      status: 'broken',
      outcomes: {},
      boundary: problem,
      problems: [problem],
      ...(keptSchema ? { keptSchema } : {}),
    }),
  });
}
