/**
 * The committed example of docs/scale.md's failover boundary (docs/examples/scale/gate-failover.*): the
 * shared PostgreSQL gate (4 instances, LIMIT 4, the default 5 s lease) across a failover of the embedded
 * cluster's primary, every permit held by a request inside it, with the permit rows on the standby
 * (`replicated`) and on the old primary alone (`unreplicated`), RUNS times each on a new cluster
 * (harness/bench/gate-failover-case.ts). Per placement: the medians over the runs (lowest–highest beside
 * them) of the time without a writable primary and without an admission, the permits the new primary
 * believed held, the most requests seen inside after the failover, and the verdict counts summed. A run
 * with a problem fails the script (exit 1), and a failing example is not published.
 *
 *   npx tsx scripts/gate-failover-example.ts [--runs N] [--out DIR]   (npm run examples -- gate-failover)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { median } from 'simple-statistics';
import {
  type GateFailoverResult,
  PERMIT_PLACEMENTS,
  type PermitPlacement,
  runGateFailoverCase,
} from '../harness/bench/gate-failover-case.ts';
import { type GateFailoverSettings, openGateFailoverBed } from '../harness/bench/gate-failover-setup.ts';
import { DEFAULT_POSTGRES } from '../harness/database/postgres-versions.ts';
import { DEFAULT_LEASE_MS } from '../harness/gate/gate.ts';
import { loadStrategy } from '../harness/registry/registry.ts';
import { markdownTable } from '../harness/report/markdown-table.ts';

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

async function once(placement: PermitPlacement): Promise<GateFailoverResult> {
  const { strategy } = await loadStrategy('hot-row');
  const bed = await openGateFailoverBed(strategy, SETTINGS, DEFAULT_POSTGRES);
  try {
    return await runGateFailoverCase(bed, SETTINGS, placement, 60_000);
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

const results: Record<string, GateFailoverResult[]> = {};
for (const placement of PERMIT_PLACEMENTS) {
  results[placement] = [];
  for (let i = 0; i < RUNS; i++) {
    const result = await once(placement);
    results[placement].push(result);
    process.stdout.write(
      `${placement} run ${i + 1}: without a primary ${result.unavailableMs} ms, without admission ${result.withoutAdmissionMs} ms, ` +
        `permits on the new primary ${result.permitsOnNewPrimary}, inside after ≤ ${result.maxInsideAfter}` +
        `${result.problems.length > 0 ? `; problems: ${result.problems.join('; ')}` : ''}\n`,
    );
  }
}
const table = markdownTable([
  [
    'permit rows',
    'runs',
    'inside the old primary',
    'permits held on the new primary',
    'ms without a writable primary',
    'ms from the kill to an admission',
    '503s before it',
    'most inside after (limit 4)',
    'lost acknowledged',
    'oversold',
    'answers (all runs)',
    'verdict',
  ],
  ...PERMIT_PLACEMENTS.map((p) => row(p, results[p] ?? [])),
]);
const failed = Object.values(results).some((runs) => runs.some((r) => r.problems.length > 0));
process.stdout.write(`${table}\n`);
if (failed) {
  process.stdout.write('a run failed: not published\n');
  process.exit(1);
}
mkdirSync(out, { recursive: true });
const lead = `Shared PostgreSQL gate across a failover: ${SETTINGS.instances} instances, LIMIT ${SETTINGS.limit}, lease ${SETTINGS.leaseMs} ms, hot-row, embedded cluster (primary + 1 synchronous standby, PostgreSQL ${DEFAULT_POSTGRES}). Medians over the runs (lowest–highest).`;
writeFileSync(join(out, 'gate-failover.md'), `${lead}\n\n${table}\n`);
// Each request's answer is in the counts already: the JSON keeps the figures.
const figures = Object.fromEntries(
  Object.entries(results).map(([p, runs]) => [
    p,
    runs.map((r) => ({ ...r, after: { ...r.after, each: undefined } })),
  ]),
);
writeFileSync(
  join(out, 'gate-failover.json'),
  `${JSON.stringify({ settings: SETTINGS, results: figures }, null, 2)}\n`,
);
process.stdout.write(`written to ${out}/gate-failover.md\n`);
