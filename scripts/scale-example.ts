/**
 * The committed example of docs/scale.md (reports/examples/scale/): the flash-sale lab's sale — 150 users on 40
 * units, admission 4:8 — through HTTP against 1, 2 and 4 `serve` instances on one embedded PostgreSQL,
 * each count once with a gate per process (`local`) and once with one gate shared through PostgreSQL.
 * Per row: the most requests the database was seen holding inside at once (pg_stat_activity), the 503s
 * retried, the time to sell out and to answer everyone, who got the units per instance, and the harness's
 * own read of the stock. A row whose database concurrency exceeded the LIMIT of 4 fails: the per-process
 * gate on more than one instance is the control, and the example shows it caught. One host with 2 cores:
 * a functional run, not a benchmark.
 *
 *   npx tsx scripts/scale-example.ts [--out DIR]    (npm run examples -- scale writes reports/examples/scale/)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { measureInstancesBurst, runInstancesBurst } from '../harness/bench/instances-burst.ts';
import { loadStrategy } from '../harness/contracts/reservation/designs/registry.ts';
import { postReserve } from '../harness/contracts/reservation/http/loopback-client.ts';
import { startEmbeddedServer } from '../harness/database/embedded-server.ts';
import { concurrencyProblems } from '../harness/gate/database-concurrency.ts';
import { markdownTable } from '../harness/report/markdown-table.ts';
import { ServeProcess } from './serve-nodes.ts';

const SKU = 'sku-lab-01';
const STOCK = 40;
const REQUESTS = 150;
const LIMIT = 4;
const ROWS = [1, 2, 4].flatMap((instances) =>
  (['local', 'postgres'] as const).map((gate) => ({ instances, gate })),
);

const out = process.argv.includes('--out')
  ? (process.argv[process.argv.indexOf('--out') + 1] ?? 'reports/scale')
  : 'reports/scale';

const server = await startEmbeddedServer();
const { strategy } = await loadStrategy('hot-row');
const admin = new pg.Client({ connectionString: server.adminUrl, application_name: 'scale-example' });
await admin.connect();

async function row(instances: number, gate: 'local' | 'postgres') {
  const schema = `scale_${instances}_${gate}`;
  const nodes = Array.from(
    { length: instances },
    (_, i) =>
      new ServeProcess(
        [
          ...['--strategy', 'hot-row', '--schema', schema, '--node', `${i + 1}/${instances}`],
          ...[
            '--admission',
            `${LIMIT}:8`,
            '--stock',
            String(STOCK),
            '--expire-every-ms',
            '0',
            '--gate',
            gate,
          ],
        ],
        server.adminUrl,
      ),
  );
  try {
    const urls: string[] = [];
    for (const node of nodes) urls.push(await node.start());
    const { records, releasedAt, concurrency } = await runInstancesBurst({
      urls,
      observer: admin,
      send: (url, request) =>
        postReserve(url, {
          requestKey: `scale-${request}`,
          user: `scale-user-${request}`,
          sku: SKU,
          ttlMs: 60_000,
        }),
      requests: REQUESTS,
      seed: 1,
    });
    const measures = measureInstancesBurst(records, releasedAt, STOCK, instances);
    await admin.query(`SET search_path TO ${schema}`);
    const remaining = await strategy.remaining(admin, SKU);
    await admin.query('RESET search_path');
    const held = measures.outcomes.HELD ?? 0;
    const problems = [
      ...concurrencyProblems(concurrency, LIMIT),
      ...(STOCK - remaining !== held ? [`drift: ${STOCK - remaining} sold, ${held} HELD answers`] : []),
      ...(held !== STOCK ? [`${STOCK - held} unit(s) left unsold`] : []),
    ];
    return { instances, gate, concurrency, ...measures, unitsSold: STOCK - remaining, problems };
  } finally {
    await Promise.all(nodes.map((node) => node.stop()));
  }
}

try {
  const rows = [];
  for (const { instances, gate } of ROWS) {
    rows.push(await row(instances, gate));
    process.stdout.write(`${instances} instance(s), gate ${gate}: done\n`);
  }
  const table = markdownTable([
    [
      'instances',
      'gate',
      'db concurrency (max seen)',
      'HELD',
      'SOLD_OUT',
      'GAVE_UP_503',
      '503s retried',
      'sold out (ms)',
      'all answered (ms)',
      'units per instance (its clients)',
      'units sold',
      'verdict',
    ],
    ...rows.map((r) => [
      String(r.instances),
      r.gate === 'local' ? 'per process' : 'shared (postgres)',
      `${r.concurrency.max} (${r.concurrency.samples} samples)`,
      String(r.outcomes.HELD ?? 0),
      String(r.outcomes.SOLD_OUT ?? 0),
      String(r.outcomes.GAVE_UP_503 ?? 0),
      String(r.retries),
      r.soldOutMs === null ? 'not sold out' : String(r.soldOutMs),
      String(r.answeredMs),
      r.perInstance.map((p) => `${p.held}/${p.requests}`).join(' · '),
      String(r.unitsSold),
      r.problems.length === 0 ? 'ok' : `FAIL: ${r.problems.join('; ')}`,
    ]),
  ]);
  mkdirSync(out, { recursive: true });
  writeFileSync(
    join(out, 'report.json'),
    `${JSON.stringify({ requests: REQUESTS, stock: STOCK, limit: LIMIT, rows }, null, 2)}\n`,
  );
  writeFileSync(
    join(out, 'report.md'),
    `# 150 users on 40 units, admission ${LIMIT}:8, against 1, 2 and 4 instances\n\n` +
      'Written by `scripts/scale-example.ts` (docs/scale.md). hot-row; every instance a `serve` process on one ' +
      'embedded PostgreSQL, on one 2-core host with the load generator: a functional run, not a benchmark. ' +
      '"db concurrency" is the most requests the database itself showed inside at once (pg_stat_activity, ' +
      `every 2 ms); a row where it exceeds the LIMIT of ${LIMIT} fails. "units per instance" is units/requests ` +
      'of the clients first sent to each instance.\n\n' +
      `${table}\n`,
  );
  process.stdout.write(`${table}\n`);
} finally {
  await admin.end();
  await server.stop({ keepData: false });
}
