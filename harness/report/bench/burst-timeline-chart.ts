/**
 * A burst as a timeline (`bench --burst`): per burst size, the units left and the share of requests answered
 * against the time since the release, one line per design (± admission, durability). A burst sells out in
 * the first steps of the first chart and answers everyone by the end of the second; a design that queues its
 * refusals behind a lock shows it as a slow second curve after the first has reached 0.
 */

import type { BurstEntry } from '../../bench/run-burst.ts';
import { type BenchChart, type ChartSeries, renderLineChart } from './charts.ts';

const nameOf = (e: BurstEntry) =>
  `${e.strategy}${e.admission ? ` (admission ${e.admission})` : ''}${e.durability === 'off' ? ' (not durable)' : ''}`;

function series(entries: readonly BurstEntry[], y: (e: BurstEntry, p: number) => number): ChartSeries[] {
  return entries.map((e) => ({
    name: nameOf(e),
    points: (e.timeline ?? []).map((p, i) => ({ x: p.ms, y: y(e, i) })),
  }));
}

/** Two charts per burst size whose bursts recorded a timeline; none for a report written before that. */
export function burstTimelineCharts(burst: readonly BurstEntry[]): BenchChart[] {
  const drawn = burst.filter((e) => e.status === 'ok' && (e.timeline?.length ?? 0) > 1);
  const sizes = [...new Set(drawn.map((e) => e.requests))].sort((a, b) => a - b);
  return sizes.flatMap((requests) => {
    const entries = drawn.filter((e) => e.requests === requests);
    const shared = { xLabel: 'ms since the release', xScale: 'linear' as const };
    return [
      {
        file: `burst-${requests}-units-left.svg`,
        alt: `units left over time, ${requests} requests`,
        svg: renderLineChart({
          ...shared,
          title: `Units left over time, ${requests} requests`,
          yLabel: 'units left (stock − HELD answers)',
          series: series(entries, (e, i) => e.timeline?.[i]?.unitsLeft ?? 0),
        }),
      },
      {
        file: `burst-${requests}-answered.svg`,
        alt: `requests answered over time, ${requests} requests`,
        svg: renderLineChart({
          ...shared,
          title: `Requests answered over time, ${requests} requests`,
          yLabel: 'answered (% of requests)',
          series: series(entries, (e, i) => (100 * (e.timeline?.[i]?.answered ?? 0)) / e.requests),
        }),
      },
    ];
  });
}
