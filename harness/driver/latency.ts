/**
 * Latency summaries from an HDR histogram (microsecond resolution, 3 significant digits), so percentiles
 * are read from a real distribution rather than from a hand-rolled sort. Histograms of one shape add up
 * bucket for bucket: load agents each send theirs (encoded as HdrHistogram's compressed form) and the
 * bench adds them, never averaging percentiles.
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

/** An empty histogram of the one shape every latency is recorded in: 1 µs to 600 s, 3 digits. */
export function latencyHistogram(): hdr.Histogram {
  return hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 600 * 1000 * MICROS_PER_MS,
    numberOfSignificantValueDigits: 3,
  });
}

/** One latency in ms, as the histogram holds it: whole microseconds, at least 1. */
export const latencyMicros = (ms: number) => Math.max(1, Math.round(ms * MICROS_PER_MS));

/**
 * The percentiles of a histogram. `maxMicros` is the largest value recorded, when known exactly: a
 * histogram decoded from its compressed form knows its largest value only to its bucket.
 */
export function summarizeHistogram(
  histogram: hdr.Histogram,
  maxMicros = histogram.maxValue,
): LatencyPercentiles {
  return {
    p50: round(histogram.getValueAtPercentile(50)),
    p95: round(histogram.getValueAtPercentile(95)),
    p99: round(histogram.getValueAtPercentile(99)),
    max: round(maxMicros),
  };
}

export function summarizeLatency(samplesMs: readonly number[]): LatencyPercentiles {
  const histogram = latencyHistogram();
  for (const ms of samplesMs) histogram.recordValue(latencyMicros(ms));
  const summary = summarizeHistogram(histogram);
  histogram.destroy();
  return summary;
}
