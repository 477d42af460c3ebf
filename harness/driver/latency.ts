/**
 * Latency summaries from an HDR histogram (microsecond resolution, 3 significant digits), so percentiles
 * are read from a real distribution rather than from a hand-rolled sort.
 */
import * as hdr from 'hdr-histogram-js';

export interface LatencyPercentiles {
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

const MICROS_PER_MS = 1000;
const round = (micros: number) => Math.round((micros / MICROS_PER_MS) * 100) / 100;

export function summarizeLatency(samplesMs: readonly number[]): LatencyPercentiles {
  const histogram = hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 600 * 1000 * MICROS_PER_MS,
    numberOfSignificantValueDigits: 3,
  });
  for (const ms of samplesMs) histogram.recordValue(Math.max(1, Math.round(ms * MICROS_PER_MS)));
  const summary = {
    p50: round(histogram.getValueAtPercentile(50)),
    p95: round(histogram.getValueAtPercentile(95)),
    p99: round(histogram.getValueAtPercentile(99)),
    max: round(histogram.maxValue),
  };
  histogram.destroy();
  return summary;
}
