/**
 * Refreshes the reviewed example reports in reports/examples/ (a deliberate act: `npm start` and `bench`
 * write only to the git-ignored reports/ folder, so running the suite never dirties the tree).
 *
 *   npm run examples              # all three: a full run, a 3-trial bench, run --target on two serves
 *   npm run examples -- run       # only the run report
 *   npm run examples -- bench     # only the bench report
 *   npm run examples -- target    # only the black-box example (scripts/target-example.ts publishes it)
 *   npm run examples -- buckets   # the bucket sweep: hot-row and bucketed × 1…256 buckets, 150 clients
 *   npm run examples -- burst     # the flash sale: 150 and 10,000 users on 40 units, with and without 4:8
 *   npm run examples -- durability  # issue 26's four designs at 16 and 150 clients, durable and not: the cost
 *   npm run examples -- open      # open-model arrivals at 300, 1000 and 3000/s, latency limit 50 ms
 *   npm run examples -- payments  # on-conflict beside it with a call of 0 and 800 ms inside the transaction
 *   npm run examples -- scale     # 150 on 40 through 1, 2 and 4 instances, per-process and shared gates
 *   npm run examples -- gate-failover  # the shared PostgreSQL gate across a failover of the embedded cluster
 *   npm run examples -- cluster   # every reservation design through the embedded cluster's failovers and faults
 *   npm run examples -- cluster-switchover  # the switchover, and the payment designs failed over, sync and async
 *
 * A failing run is not published: the example a reviewer opens must be the one CI would pass.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'bin', 'reservebench.js');
const wanted = process.argv.slice(2);
const kinds = wanted.length === 0 ? ['run', 'bench', 'target'] : wanted;
const RESERVATION_DESIGNS =
  'hot-row,skip-locked-slots,row-lock-count,optimistic-cas,serializable,frozen-ledger,bucketed,coalesced,memory-quota';
const PAYMENT_DESIGNS =
  'payment-on-conflict,payment-advisory-lock,payment-serializable,payment-external-call-inside';
/** Every cluster case on the embedded cluster, in two runs of under ~15 minutes each on a shared 2-core machine. */
const CLUSTER_RUN = ['run', '--cluster', 'embedded', '--scenario'];
const known: Record<string, { args: string[]; latest: string; example: string }> = {
  cluster: {
    args: [
      ...CLUSTER_RUN,
      'failover-sync,failover-async,stale-promotion,replication-partition,split-brain,standby-reads',
      '--strategy',
      `${RESERVATION_DESIGNS},standby-stock-check`,
    ],
    latest: 'latest',
    example: 'cluster',
  },
  'cluster-switchover': {
    args: [
      ...CLUSTER_RUN,
      'switchover,payment-failover-sync,payment-failover-async',
      '--strategy',
      `${RESERVATION_DESIGNS},${PAYMENT_DESIGNS}`,
    ],
    latest: 'latest',
    example: 'cluster-switchover',
  },
  run: { args: ['run'], latest: 'latest', example: 'run' },
  bench: { args: ['bench', '--trials', '3'], latest: 'latest-bench', example: 'bench' },
  buckets: {
    args: [
      'bench',
      '--strategy',
      'hot-row,bucketed',
      '--param',
      'bucketed.buckets=1,4,16,64,256',
      '--clients',
      '150',
      '--trials',
      '3',
    ],
    latest: 'latest-bench',
    example: 'bench-buckets',
  },
  durability: {
    args: [
      'bench',
      '--strategy',
      'hot-row,bucketed,coalesced,memory-quota',
      '--clients',
      '16,150',
      '--durability',
      'on,off',
      '--trials',
      '3',
    ],
    latest: 'latest-bench',
    example: 'bench-durability',
  },
  open: {
    args: [
      'bench',
      '--strategy',
      'hot-row,skip-locked-slots',
      '--clients',
      '16',
      '--rate',
      '300,1000,3000',
      '--latency-limit',
      '50',
      '--trials',
      '3',
    ],
    latest: 'latest-bench',
    example: 'bench-open',
  },
  burst: {
    args: [
      'bench',
      '--burst',
      '150,10000',
      '--stock',
      '40',
      '--strategy',
      'hot-row,skip-locked-slots',
      '--admission',
      '4:8',
    ],
    latest: 'latest-bench',
    example: 'bench-burst',
  },
  payments: {
    args: [
      'bench',
      '--strategy',
      'payment-on-conflict,payment-external-call-inside',
      '--param',
      'payment-external-call-inside.callMs=0,800',
      '--clients',
      '16,64',
    ],
    latest: 'latest-bench',
    example: 'bench-payments',
  },
};

for (const kind of kinds) {
  if (kind === 'scale' || kind === 'gate-failover') {
    // N serve processes per row (instances and clusters): the script writes reports/examples/scale/ itself.
    const result = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        join(root, 'scripts', `${kind === 'scale' ? 'scale' : 'gate-failover'}-example.ts`),
        '--out',
        join(root, 'reports', 'examples', 'scale'),
      ],
      { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] },
    );
    if (result.status !== 0) process.exit(result.status ?? 1);
    continue;
  }
  if (kind === 'target') {
    // Two serve processes and their supervisor: the script runs and publishes that example itself.
    const result = spawnSync(
      process.execPath,
      ['--import', 'tsx', join(root, 'scripts', 'target-example.ts')],
      {
        cwd: root,
        stdio: ['ignore', 'inherit', 'inherit'],
      },
    );
    if (result.status !== 0) process.exit(result.status ?? 1);
    continue;
  }
  const job = known[kind];
  if (!job) {
    console.error(
      `refresh-examples: unknown report kind "${kind}" (run, bench, buckets, burst, cluster, cluster-switchover, durability, open, payments, scale, gate-failover, target)`,
    );
    process.exit(2);
  }
  const reports = mkdtempSync(join(tmpdir(), 'reservebench-examples-'));
  const result = spawnSync(process.execPath, [cli, ...job.args, '--reports', reports], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (result.status !== 0) {
    console.error(
      `refresh-examples: \`reservebench ${job.args.join(' ')}\` exited ${result.status}; reports/examples/${job.example} left as it was`,
    );
    rmSync(reports, { recursive: true, force: true });
    process.exit(result.status ?? 1);
  }
  const target = join(root, 'reports', 'examples', job.example);
  rmSync(target, { recursive: true, force: true });
  cpSync(join(reports, job.latest), target, { recursive: true });
  rmSync(reports, { recursive: true, force: true });
  console.error(`refresh-examples: reports/examples/${job.example} refreshed`);
}
