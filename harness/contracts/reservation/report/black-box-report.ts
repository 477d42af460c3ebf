/**
 * The report's part on a black box (`run --target`): the nodes, how stock was loaded, what the run could
 * not do, which scenarios ran black-box and which were n/a and why, and the HTTP facts per endpoint.
 * report.md and the terminal render the same tables (reservation-report.ts).
 */

import type { TableData } from '../../../contract/contract.ts';
import { formatCodes, type HttpFacts } from '../blackbox/exchange-log.ts';
import type { ReservationReport as Report } from './report-schema.ts';

const SETUP: Record<NonNullable<Report['target']>['setup'], string> = {
  reset: 'POST /admin/reset on every node before each case',
  command: '--target-setup before each case',
  none: 'none (no --target-setup, POST /admin/reset off)',
};

/** One row per endpoint: exchanges, status codes, 503s retried, latency per exchange. */
export function httpTable(http: HttpFacts): TableData {
  return {
    headers: [
      'endpoint',
      'requests',
      'status codes',
      '503 retried',
      'p50 (ms)',
      'p95 (ms)',
      'p99 (ms)',
      'max (ms)',
    ],
    rows: http.endpoints.map((e) => [
      e.endpoint,
      String(e.requests),
      formatCodes(e.codes),
      String(e.retried503),
      String(e.latency.p50),
      String(e.latency.p95),
      String(e.latency.p99),
      String(e.latency.max),
    ]),
  };
}

/** One row per scenario: ran black-box (its verdict), or n/a with the reason. */
export function scenarioTable(report: Report): TableData {
  const target = report.target;
  if (!target) return { headers: [], rows: [] };
  const verdict = (scenario: string) => {
    const cells = report.coverage.flatMap((r) => (r.cells[scenario] ? [r.cells[scenario]] : []));
    return cells.join(', ') || 'ran';
  };
  return {
    headers: ['scenario', 'black box', 'why not'],
    rows: [
      ...target.ran.map((s) => [s, verdict(s), '-']),
      ...target.notApplicable.map((n) => [
        n.scenario,
        verdict(n.scenario),
        n.reason.replace(/^black box: /, ''),
      ]),
    ],
  };
}

/** The facts above the tables, one line each. */
export function targetLines(report: Report): string[] {
  const target = report.target;
  if (!target) return [];
  const caught = target.caughtBy
    ? ` (caught by ${Object.entries(target.caughtBy)
        .map(([scenario, checks]) => `${scenario}: ${checks.join(' or ')}`)
        .join('; ')})`
    : '';
  return [
    `target: ${target.urls.join(', ')} (${target.urls.length} node${target.urls.length === 1 ? '' : 's'}; client i → node i mod ${target.urls.length}), expect ${target.expect}${caught}`,
    `stock loaded by: ${SETUP[target.setup]}; node restarts: ${target.restart === 'command' ? '--target-restart' : 'none'}`,
    `ran black-box: ${target.ran.join(', ') || 'nothing'}; n/a or not covered: ${target.notApplicable.length} scenario(s)`,
    ...target.notes,
  ];
}
