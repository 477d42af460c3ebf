/** `reservebench bench`: the series, the progress bar, the bench report and its charts. */

import { buildBenchReport, writeBenchReportFiles } from '../../bench/bench-report.ts';
import { renderBenchTerminal } from '../../bench/bench-terminal.ts';
import { progressBar } from '../../bench/progress.ts';
import { runBench } from '../../bench/run-bench.ts';
import { Errors, EXIT } from '../../errors.ts';
import { parseAdmission } from '../../http/admission.ts';
import { loadAllBuiltIn } from '../../registry/registry.ts';
import { boundedInteger, databaseUrlFrom, list, MAX_CLIENTS, resolveStrategies } from '../cli-arguments.ts';

export const DEFAULT_BENCH_CLIENTS = [1, 4, 16, 64, 150];

function clientList(text: string | undefined): number[] {
  if (text === undefined) return DEFAULT_BENCH_CLIENTS;
  const values = text.split(',').map((v) => boundedInteger('clients', v.trim(), 1, MAX_CLIENTS) ?? 0);
  return [...new Set(values)].sort((a, b) => a - b);
}

export interface BenchArgs {
  strategy?: string[];
  clients?: string;
  admission?: string;
  'wait-ms'?: unknown;
  'warmup-ms'?: unknown;
  'duration-ms'?: unknown;
  threads?: unknown;
  stock?: unknown;
  json: boolean;
  'database-url'?: string;
  reports: string;
  'timeout-ms'?: unknown;
}

export async function benchCommand(args: BenchArgs): Promise<number> {
  const clients = clientList(args.clients);
  const gate = args.admission === undefined ? undefined : parseAdmission(args.admission);
  if (args.admission !== undefined && !gate) {
    throw Errors.badInput(`--admission must be LIMIT:WAITING (e.g. 4:8), got "${args.admission}"`);
  }
  const waitMs = boundedInteger('wait-ms', args['wait-ms'], 1, 60_000) ?? 400;
  const names = list(args.strategy);
  const strategies =
    names.length > 0
      ? await resolveStrategies(names)
      : (await loadAllBuiltIn()).filter((r) => r.strategy.expect === 'hold');
  const databaseUrl = databaseUrlFrom(args);
  const progress = args.json ? undefined : progressBar(strategies.length * clients.length * (gate ? 2 : 1));
  const result = await runBench({
    strategies,
    clients,
    warmupMs: boundedInteger('warmup-ms', args['warmup-ms'], 0, 600_000) ?? 1_000,
    durationMs: boundedInteger('duration-ms', args['duration-ms'], 100, 3_600_000) ?? 3_000,
    stock: boundedInteger('stock', args.stock, 1, 2_000_000) ?? 200_000,
    timeoutMs: boundedInteger('timeout-ms', args['timeout-ms'], 100, 600_000) ?? 60_000,
    ...(args.threads !== undefined ? { threads: boundedInteger('threads', args.threads, 1, 64) } : {}),
    ...(gate ? { admission: { ...gate, waitMs } } : {}),
    ...(databaseUrl ? { databaseUrl } : {}),
    ...(progress
      ? {
          onSeries: (e) =>
            progress.tick(`${e.strategy}${e.admission ? ` [${e.admission}]` : ''} × ${e.clients}`),
        }
      : {}),
  });
  progress?.stop();
  const report = buildBenchReport(result);
  const folder = writeBenchReportFiles(args.reports, report);
  if (args.json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    process.stdout.write(`${renderBenchTerminal(report)}\nreport: ${folder}/report.md\n`);
  }
  return result.ok ? EXIT.ok : EXIT.expectationFailed;
}
