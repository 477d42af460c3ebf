import { ISOLATION_LEVELS, type IsolationLevel } from '../../../strategies/contract.ts';
/** `reservebench run`: the cases, the tables, the reports, and the exit code of the gate. */

import { Errors, EXIT } from '../../errors.ts';
import { buildReport, writeReportFiles } from '../../report/report.ts';
import { caseLine, renderTerminal } from '../../report/terminal.ts';
import { findScenario, SCENARIOS } from '../../scenario/index.ts';
import { runSuite } from '../../scenario/suite.ts';
import {
  boundedInteger,
  databaseUrlFrom,
  list,
  MAX_CLIENTS,
  MAX_REPEAT,
  MAX_STOCK,
  resolveStrategies,
} from '../cli-arguments.ts';

export interface RunArgs {
  strategy?: string[];
  scenario?: string[];
  clients?: unknown;
  stock?: unknown;
  repeat?: unknown;
  json: boolean;
  'database-url'?: string;
  keep: boolean;
  reports: string;
  'timeout-ms'?: unknown;
  'require-coverage': boolean;
  permutations: string;
  isolation?: string[];
}

function isolationLevel(value: string): IsolationLevel {
  const level = ISOLATION_LEVELS.find((l) => l === value);
  if (!level)
    throw Errors.badInput(`unknown isolation level "${value}"; choose from: ${ISOLATION_LEVELS.join(', ')}`);
  return level;
}

function permutationsFrom(value: string): 'listed' | 'all' {
  if (value === 'listed' || value === 'all') return value;
  throw Errors.badInput(`--permutations must be listed or all, got "${value}"`);
}

export async function runCommand(args: RunArgs): Promise<number> {
  const clients = boundedInteger('clients', args.clients, 1, MAX_CLIENTS);
  const stock = boundedInteger('stock', args.stock, 0, MAX_STOCK);
  const repeat = boundedInteger('repeat', args.repeat, 1, MAX_REPEAT) ?? 1;
  const timeoutMs = boundedInteger('timeout-ms', args['timeout-ms'], 100, 600_000) ?? 60_000;
  const scenarioIds = list(args.scenario);
  const scenarios = scenarioIds.length > 0 ? scenarioIds.map(findScenario) : SCENARIOS;
  const strategies = await resolveStrategies(list(args.strategy));
  const databaseUrl = databaseUrlFrom(args);
  const isolation = list(args.isolation).map(isolationLevel);

  const result = await runSuite({
    strategies,
    scenarios,
    overrides: { ...(clients !== undefined ? { clients } : {}), ...(stock !== undefined ? { stock } : {}) },
    repeat,
    keep: args.keep,
    timeoutMs,
    requireCoverage: args['require-coverage'],
    permutations: permutationsFrom(args.permutations),
    ...(isolation.length > 0 ? { isolation } : {}),
    ...(databaseUrl ? { databaseUrl } : {}),
    ...(args.json ? {} : { onCase: (c) => c.status !== 'n/a' && process.stderr.write(`${caseLine(c)}\n`) }),
  });
  const report = buildReport(
    result,
    strategies.map((r) => r.strategy),
  );
  const folder = writeReportFiles(args.reports, report);
  if (args.json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    process.stdout.write(`\n${renderTerminal(report)}\nreport: ${folder}/report.md\n`);
  }
  for (const line of result.kept) process.stderr.write(`${line}\n`);
  return result.ok ? EXIT.ok : EXIT.expectationFailed;
}
