/**
 * The sell-what-remains probe, run: after the final read and the audit, on the case's own tables, the
 * harness sells every sku of the case with keys and users of its own, node by node, through the driver the
 * case's requests went through — the worker-thread clients (or a black box's driver), so a node's memory
 * is the one it served the case with; an interleaving's sessions ran on this thread, and so does its probe.
 * One client per node, one request at a time, until it is refused. The probe's requests are not the
 * case's: they are in no history, no outcome count and no phase. They stay in the case's tables, after
 * everything the final read and the audit saw (a kept schema shows them by their key prefix, `PROBE_KEY`).
 * Its verdict is verdict/sells-what-remains.ts's.
 */
import pg from 'pg';
import type {
  NodeIdentity,
  ReserveRequest,
  SessionContext,
  Strategy,
} from '../../../../strategies/contract.ts';
import { type CaseConnection, sessionOptions } from '../../../driver/case-connection.ts';
import { nodeIdentity } from '../../../driver/node-identity.ts';
import { oneLine } from '../../../errors.ts';
import { STRATEGY_IMPORTER } from '../designs/registry.ts';
import type { ClientDriver } from '../driver/client-pool.ts';
import { answeredResult, answerWithin } from '../driver/reserve-answer.ts';
import type { SkuProbe } from '../verdict/case-result.ts';
import type { FinalRead } from '../verdict/final-read.ts';
import {
  type NodeSale,
  type ProbeTarget,
  probeTargets,
  requestsForNextNode,
  skuProbe,
} from '../verdict/sells-what-remains.ts';
import type { CaseOnSchema } from './case-spec.ts';
import type { Driven } from './driven.ts';

/** Every key and user the probe sends starts with this: no case sends one like it. */
export const PROBE_KEY = 'reservebench-probe';

/** A probe hold outlives any case's expiry: nothing gives its unit back while the probe counts. */
const PROBE_TTL_MS = 3_600_000;

/** Sends `requests` to `node`, one at a time, and stops at the first answer that is not HELD. */
type Seller = (node: NodeIdentity, requests: readonly ReserveRequest[]) => Promise<NodeSale>;

/** The nodes the case ended with (a restarted node in its last incarnation), every one of its count. */
function probeNodes(on: CaseOnSchema, driven: Driven): NodeIdentity[] {
  const seen = driven.nodes ?? [];
  const count = seen[0]?.count ?? on.spec.params.nodes ?? 1;
  return Array.from(
    { length: count },
    (_, i) => seen.find((n) => n.index === i) ?? nodeIdentity(on.schema, i, count),
  );
}

function saleOf(node: NodeIdentity, results: readonly { outcome: string; error?: string }[]): NodeSale {
  const failed = results.find((r) => r.error !== undefined);
  return {
    node: node.name,
    outcomes: results.map((r) => r.outcome),
    ...(failed?.error ? { error: failed.error } : {}),
  };
}

/** Through the case's client driver: one client bound to the node, sending until refused. */
function poolSeller(on: CaseOnSchema, pool: ClientDriver, connection: CaseConnection): Seller {
  return async (node, requests) => {
    const [client] = await pool.drive({
      strategyModuleUrl: on.spec.ref.moduleUrl,
      strategyImporter: STRATEGY_IMPORTER,
      connection,
      clients: [{ index: 0, requests: [...requests], node, untilRefused: true }],
      nodes: node.count,
      timeoutMs: on.settings.timeoutMs,
    });
    return saleOf(node, client?.results ?? []);
  };
}

/** On this thread, on one session of the probe's own, as an interleaving's operations ran. */
function sessionSeller(strategy: Strategy, client: pg.Client, timeoutMs: number): Seller {
  return async (node, requests) => {
    const ctx: SessionContext = { db: client, node, pause: async () => undefined, pausesAt: () => false };
    const results: { outcome: string; error?: string }[] = [];
    for (const request of requests) {
      try {
        const answer = await answerWithin(strategy.reserve(ctx, request), 2 * timeoutMs);
        results.push(answeredResult(request, answer, 0, {}));
      } catch (error: unknown) {
        results.push({ outcome: 'ERROR', error: oneLine(error) });
      }
      if (results.at(-1)?.outcome !== 'HELD') break;
    }
    return saleOf(node, results);
  };
}

/** One sku sold node by node: each node is asked for what is still due, and one more. */
async function probeSku(
  target: ProbeTarget,
  nodes: readonly NodeIdentity[],
  sell: Seller,
  next: () => number,
): Promise<SkuProbe> {
  const sales: NodeSale[] = [];
  let sold = 0;
  for (const node of nodes) {
    const requests = Array.from({ length: requestsForNextNode(target, sold) }, () => {
      const n = next();
      const name = `${PROBE_KEY}-${n}`;
      return { requestKey: name, user: `${name}-user`, sku: target.sku, ttlMs: PROBE_TTL_MS };
    });
    const sale = await sell(node, requests);
    sales.push(sale);
    sold += sale.outcomes.filter((o) => o === 'HELD').length;
  }
  return skuProbe(target, sales);
}

/** The probe of every sku of the case, after its final read (`pool`: the driver its clients ran on). */
export async function probeSellsWhatRemains(
  on: CaseOnSchema,
  driven: Driven,
  read: FinalRead,
  pool: ClientDriver | undefined,
): Promise<SkuProbe[]> {
  const { spec, db, schema, settings } = on;
  const targets = probeTargets(spec.params.stock, read.remaining, driven.lifecycle.disabled);
  const nodes = probeNodes(on, driven);
  const connection: CaseConnection = {
    connectionString: db.connectionString,
    schema,
    ...(spec.isolation ? { isolation: spec.isolation } : {}),
  };
  let sent = 0;
  const next = () => ++sent;
  if (pool) return probeEach(targets, nodes, poolSeller(on, pool, connection), next);
  const client = new pg.Client({
    connectionString: connection.connectionString,
    application_name: 'reservebench-probe',
    options: sessionOptions(connection),
  });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await probeEach(
      targets,
      nodes,
      sessionSeller(spec.ref.strategy, client, settings.timeoutMs),
      next,
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function probeEach(
  targets: readonly ProbeTarget[],
  nodes: readonly NodeIdentity[],
  sell: Seller,
  next: () => number,
): Promise<SkuProbe[]> {
  const probes: SkuProbe[] = [];
  for (const target of targets) probes.push(await probeSku(target, nodes, sell, next));
  return probes;
}
