/**
 * The committed example of docs/scale.md's failover boundary (reports/examples/scale/gate-failover.*): the
 * shared PostgreSQL gate (4 instances, LIMIT 4, the default 5 s lease) across a failover of the embedded
 * cluster's primary, every permit held by a request inside it, with the permit rows on the standby
 * (`replicated`) and on the old primary alone (`unreplicated`), RUNS times each on a new cluster
 * (harness/contracts/reservation/gate/gate-failover-case.ts). Per placement: the medians over the runs (lowest–highest beside
 * them) of the time without a writable primary and without an admission, the permits the new primary
 * believed held, the most requests seen inside after the failover, and the verdict counts summed. A run
 * with a problem fails the script (exit 1), and a failing example is not published.
 *
 *   npx tsx scripts/gate-failover-example.ts [--runs N] [--out DIR]   (npm run examples -- gate-failover)
 *   npx tsx scripts/gate-failover-example.ts --cluster patroni ...     (Patroni + etcd on loopback: `replicated`
 *                                                                      only, written as gate-failover-patroni.*)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { median } from 'simple-statistics';
import type { DatabaseCluster } from '../harness/cluster/cluster.ts';
import { ManagedCluster } from '../harness/cluster/managed-cluster.ts';
import { patroniManager } from '../harness/cluster/patroni-manager.ts';
import { loadStrategy } from '../harness/contracts/reservation/designs/registry.ts';
import {
  type GateFailoverResult,
  PERMIT_PLACEMENTS,
  type PermitPlacement,
  runGateFailoverCase,
} from '../harness/contracts/reservation/gate/gate-failover-case.ts';
import {
  embeddedGateCluster,
  type GateFailoverSettings,
  openGateFailoverBed,
} from '../harness/contracts/reservation/gate/gate-failover-setup.ts';
import { DEFAULT_POSTGRES } from '../harness/database/postgres-versions.ts';
import { DEFAULT_LEASE_MS } from '../harness/gate/gate.ts';
import { markdownTable } from '../harness/report/markdown-table.ts';
import { patroniMissing, startPatroniCluster } from './patroni-cluster.ts';

const SETTINGS: GateFailoverSettings = {
  instances: 4,
  limit: 4,
  leaseMs: DEFAULT_LEASE_MS,
  waitMs: 300,
  stock: 100,
};
const option = (name: string) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
const RUNS = Number(option('--runs') ?? 5);
const out = option('--out') ?? 'reports/gate-failover';
const onPatroni = option('--cluster') === 'patroni';
const file = onPatroni ? 'gate-failover-patroni' : 'gate-failover';

/** Where the runs happen: a new embedded cluster per run, or one Patroni cluster for them all. */
interface Where {
  name: string;
  placements: readonly PermitPlacement[];
  /** The cluster for one run, and whether the run owns it. */
  cluster(): Promise<{ cluster: DatabaseCluster; owned: boolean }>;
  close(): Promise<void>;
}

const embedded: Where = {
  name: `embedded cluster (primary + 1 synchronous standby, PostgreSQL ${DEFAULT_POSTGRES})`,
  placements: PERMIT_PLACEMENTS,
  cluster: async () => ({ cluster: await embeddedGateCluster(DEFAULT_POSTGRES), owned: true }),
  close: async () => undefined,
};

/** Patroni 3 + etcd on loopback (scripts/patroni-cluster.ts); its failover is Patroni's POST /failover. */
async function patroni(): Promise<Where> {
  const missing = patroniMissing();
  if (missing) throw new Error(`--cluster patroni ${missing}`);
  const running = await startPatroniCluster({ sync: true });
  const timeoutMs = 120_000;
  const cluster = await ManagedCluster.open(
    patroniManager(running.apiUrls, timeoutMs),
    running.clusterUrl,
    timeoutMs,
  );
  return {
    name: `Patroni cluster (${cluster.environment().manager}, 2 members, synchronous_mode, PostgreSQL 15)`,
    // Patroni's cluster cannot have its link cut by the suite.
    placements: ['replicated'],
    async cluster() {
      await cluster.settle();
      return { cluster, owned: false };
    },
    close: () => running.stop(),
  };
}

async function once(where: Where, placement: PermitPlacement): Promise<GateFailoverResult> {
  const { strategy } = await loadStrategy('hot-row');
  const { cluster, owned } = await where.cluster();
  const bed = await openGateFailoverBed(strategy, SETTINGS, cluster, owned);
  try {
    return await runGateFailoverCase(bed, SETTINGS, placement, 120_000);
  } finally {
    await bed.close();
  }
}

/** `median (lowest–highest)` of one measure over the runs. */
function spread(values: readonly number[]): string {
  const m = Math.round(median([...values]));
  return `${m} (${Math.min(...values)}–${Math.max(...values)})`;
}

const sum = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

function row(placement: PermitPlacement, runs: readonly GateFailoverResult[]): string[] {
  const answers = new Map<string, number>();
  for (const r of runs)
    for (const [k, n] of Object.entries(r.answers)) answers.set(k, (answers.get(k) ?? 0) + n);
  return [
    placement,
    String(runs.length),
    spread(runs.map((r) => r.insideBeforeFailover)),
    spread(runs.map((r) => r.permitsOnNewPrimary)),
    spread(runs.map((r) => r.unavailableMs)),
    spread(runs.map((r) => r.withoutAdmissionMs)),
    spread(runs.map((r) => r.refusedBeforeAdmission)),
    String(Math.max(...runs.map((r) => r.maxInsideAfter))),
    String(sum(runs.map((r) => r.lostAcknowledged))),
    String(sum(runs.map((r) => r.oversold))),
    [...answers].map(([k, n]) => `${n} × ${k}`).join(', '),
    runs.every((r) => r.problems.length === 0) ? 'pass' : 'FAIL',
  ];
}

const where = onPatroni ? await patroni() : embedded;
const results: Partial<Record<PermitPlacement, GateFailoverResult[]>> = {};
try {
  for (const placement of where.placements) {
    const runs: GateFailoverResult[] = [];
    results[placement] = runs;
    for (let i = 0; i < RUNS; i++) {
      const result = await once(where, placement);
      runs.push(result);
      process.stdout.write(
        `${placement} run ${i + 1}: without a primary ${result.unavailableMs} ms, without admission ${result.withoutAdmissionMs} ms, ` +
          `permits on the new primary ${result.permitsOnNewPrimary}, inside after ≤ ${result.maxInsideAfter}` +
          `${result.problems.length > 0 ? `; problems: ${result.problems.join('; ')}` : ''}\n`,
      );
    }
  }
} finally {
  await where.close();
}
const table = markdownTable([
  [
    'permit rows',
    'runs',
    'inside the old primary',
    'permits held on the new primary',
    'ms without a writable primary',
    "ms from the failover's start to an admission",
    '503s before it',
    'most inside after (limit 4)',
    'lost acknowledged',
    'oversold',
    'answers (all runs)',
    'verdict',
  ],
  ...where.placements.map((p) => row(p, results[p] ?? [])),
]);
const failed = Object.values(results).some((runs) => runs.some((r) => r.problems.length > 0));
process.stdout.write(`${table}\n`);
if (failed) {
  process.stdout.write('a run failed: not published\n');
  process.exit(1);
}
mkdirSync(out, { recursive: true });
const lead = `Shared PostgreSQL gate across a failover: ${SETTINGS.instances} instances, LIMIT ${SETTINGS.limit}, lease ${SETTINGS.leaseMs} ms, hot-row, ${where.name}. Medians over the runs (lowest–highest).`;
writeFileSync(join(out, `${file}.md`), `${lead}\n\n${table}\n`);
// Each request's answer is in the counts already: the JSON keeps the figures.
const figures = Object.fromEntries(
  Object.entries(results).map(([p, runs]) => [
    p,
    runs.map((r) => ({ ...r, after: { ...r.after, each: undefined } })),
  ]),
);
writeFileSync(
  join(out, `${file}.json`),
  `${JSON.stringify({ settings: SETTINGS, results: figures }, null, 2)}\n`,
);
process.stdout.write(`written to ${out}/${file}.md\n`);
