/** The bench table on the terminal. */

import { CLIENT_BOUND_CORES } from '../../bench/saturation.ts';
import { admissionFactors, benchCommitsLine, durabilityCosts } from '../../bench/series-factors.ts';
import { renderBoxTable } from '../box-table.ts';
import { AGENT_TERMINAL_HEADERS, agentRows, burstAgentRows } from './agent-tables.ts';
import { type BenchReport, benchContractOf } from './bench-report.ts';
import { BURST_TERMINAL_HEADERS, burstTerminalRows } from './burst-tables.ts';
import { openRows, openSuffix, openTerminalHeaders } from './open-tables.ts';

/** `bench --burst`: the commits, then one row per burst. */
function renderBurstTerminal(report: BenchReport, burst: NonNullable<BenchReport['burst']>): string {
  const table = renderBoxTable({ head: BURST_TERMINAL_HEADERS, rows: burstTerminalRows(burst) });
  const agents = burstAgentRows(burst);
  return [
    benchCommitsLine(burst, report.environment.settings),
    table,
    'times in ms from the one release instant; fair: HELD among the first min(stock, requests) arrivals; sold: the final read of the stock',
    ...(agents.length > 0
      ? [
          renderBoxTable({
            head: ['burst', 'agent', 'host', 'threads', 'requests', 'held', 'cores', 'bound'],
            rows: agents,
          }),
        ]
      : []),
  ].join('\n');
}

export function renderBenchTerminal(report: BenchReport): string {
  if (report.burst) return renderBurstTerminal(report, report.burst);
  const head = [
    'strategy',
    'admission',
    'clients',
    `${benchContractOf(report).shortUnit} [95% CI]`,
    'p50 ms',
    'p95 ms',
    'p99 ms [95% CI]',
    'max ms',
    'errors',
    'lock waiters',
    'cores gen/server',
    'status',
  ];
  const rows: string[][] = [];
  const withInterval = (median: number, i: { low: number; high: number } | undefined) =>
    i ? `${median} [${i.low}–${i.high}]` : String(median);
  for (const e of report.bench) {
    const status = e.status === 'ok' ? 'ok' : `FAIL: ${e.problems.join('; ')}`;
    rows.push(
      [
        `${e.strategy}${e.durability === 'off' ? ' (not durable)' : ''}${openSuffix(e)}`,
        e.admission ?? '-',
        e.clients,
        withInterval(e.median.throughput, e.ci95?.throughput),
        e.latency.p50,
        e.latency.p95,
        withInterval(e.median.p99, e.ci95?.p99),
        e.latency.max,
        Object.values(e.errors).reduce((a, b) => a + b, 0),
        e.lockWait.meanWaiters,
        `${e.saturation.generatorCores} / ${e.saturation.serverCores ?? 'n/a'}`,
        e.saturation.clientBound ? `${status}, CLIENT-BOUND` : status,
      ].map(String),
    );
  }
  const trials = Math.max(0, ...report.bench.map((e) => e.trials.length));
  const single = report.uncontended.map(
    (u) => `${u.strategy} ${u.opsPerSecond}/s (mean ${u.latency.mean} ms)`,
  );
  const factors = admissionFactors(report.bench).map(
    (f) => `${f.strategy}${f.durability === 'off' ? ' (not durable)' : ''} × ${f.clients}: ${f.factor}`,
  );
  const costs = durabilityCosts(report.bench).map(
    (c) => `${c.strategy}${c.admission ? ` [${c.admission}]` : ''} × ${c.clients}: ${c.factor}`,
  );
  const agents = agentRows(report.bench);
  const open = openRows(report.bench);
  const openTable = renderBoxTable({
    head: openTerminalHeaders(benchContractOf(report).shortUnit),
    rows: open,
  });
  return [
    benchCommitsLine(report.bench, report.environment.settings),
    renderBoxTable({ head, rows }),
    ...(open.length > 0
      ? [
          "open model, ms: latency from each arrival's due time (due: queueing for a free client included) beside the service time (svc)",
          openTable,
        ]
      : []),
    ...(agents.length > 0
      ? [
          'load agents: answers and dropped arrivals summed over the trials; cores, p50 and p99 their medians',
          renderBoxTable({ head: AGENT_TERMINAL_HEADERS, rows: agents }),
        ]
      : []),
    `medians over ${trials} trial(s) with 95% intervals${trials > 1 && trials < 10 ? ' (wide with so few trials; --trials 10 narrows them)' : ''}; CLIENT-BOUND: the generator used ≥ ${CLIENT_BOUND_CORES} core in some trial`,
    ...(single.length > 0 ? [`uncontended (tinybench, one client): ${single.join('; ')}`] : []),
    ...(factors.length > 0 ? [`throughput with ÷ without admission: ${factors.join('; ')}`] : []),
    ...(costs.length > 0 ? [`throughput durable ÷ not durable: ${costs.join('; ')}`] : []),
  ].join('\n');
}
