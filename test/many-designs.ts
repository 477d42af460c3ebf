/**
 * A made-up bench chart of many designs (test/charts.test.ts, test/html-report.test.ts): 12 designs over
 * five client counts, from 40 to 40,000 reservations/s, the last with a 60-character name.
 */
import { type ChartSeries, renderLineChart } from '../harness/report/bench/charts.ts';

export const LONG_NAME = 'optimistic-compare-and-swap-with-bounded-retries (admission 8)';

export function manyDesigns(count = 12): ChartSeries[] {
  return Array.from({ length: count }, (_, i) => {
    const level = 40 * 1000 ** (i / (count - 1));
    return {
      name: i === count - 1 ? LONG_NAME : `design-${i + 1}`,
      points: [1, 4, 16, 64, 150].map((x, n) => ({
        x,
        y: level * (1 + n / 10),
        interval: { low: level * 0.8, high: level * 1.6 },
        hollow: n === 4,
      })),
    };
  });
}

export const throughputChart = (series: ChartSeries[]) =>
  renderLineChart({
    title: 'Throughput vs clients',
    xLabel: 'clients',
    yLabel: 'reservations / s',
    series,
    yScale: 'log-when-wide',
    intervalLabel: '95% interval',
    hollowLabel: 'client-bound (≥ 0.8 core)',
  });
