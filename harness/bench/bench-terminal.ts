/** The bench table on the terminal. */
import Table from 'cli-table3';
import { admissionFactors, type BenchReport } from './bench-report.ts';

export function renderBenchTerminal(report: BenchReport): string {
  const table = new Table({
    head: [
      'strategy',
      'admission',
      'clients',
      'thr/s',
      'p50',
      'p95',
      'p99',
      'max',
      'errors',
      'lock waiters',
      'status',
    ],
    style: { head: [], border: [] },
  });
  for (const e of report.bench) {
    table.push([
      e.strategy,
      e.admission ?? '-',
      e.clients,
      e.throughput,
      e.latency.p50,
      e.latency.p95,
      e.latency.p99,
      e.latency.max,
      Object.values(e.errors).reduce((a, b) => a + b, 0),
      e.lockWait.meanWaiters,
      e.status === 'ok' ? 'ok' : `FAIL: ${e.problems.join('; ')}`,
    ]);
  }
  const single = report.uncontended.map(
    (u) => `${u.strategy} ${u.opsPerSecond}/s (mean ${u.latency.mean} ms)`,
  );
  const factors = admissionFactors(report.bench).map((f) => `${f.strategy} × ${f.clients}: ${f.factor}`);
  return [
    table.toString(),
    `uncontended (tinybench, one client): ${single.join('; ')}`,
    ...(factors.length > 0 ? [`throughput with ÷ without admission: ${factors.join('; ')}`] : []),
  ].join('\n');
}
