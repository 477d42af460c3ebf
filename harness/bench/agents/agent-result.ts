/**
 * What an agent sends back for one trial, and how the bench adds the agents' parts up. An agent sends its
 * latencies as HDR histograms (HdrHistogram's compressed base64 form, µs) and its counts; the bench adds
 * the histograms bucket for bucket and sums the counts — percentiles are read from the sum, never
 * averaged over agents (an average of p99s is no percentile of anything). The largest latency travels
 * exactly beside its histogram, which knows it only to its bucket.
 */
import * as hdr from 'hdr-histogram-js';
import {
  type LatencyPercentiles,
  latencyHistogram,
  latencyMicros,
  summarizeHistogram,
} from '../../driver/latency.ts';
import type { BenchThreadResult } from '../bench-task.ts';
import { type OpenCounts, openCounts } from '../open-model.ts';
import type { TrialCounts } from '../run-bench.ts';

/** Latencies as they travel: the histogram, and the largest one exactly (µs). */
export interface EncodedLatencies {
  histogram: string;
  maxMicros: number;
  count: number;
}

/** One agent's part of one trial, as it writes it into the exchange. */
export interface AgentTrialResult {
  host: string;
  pid: number;
  cores: number;
  threads: number;
  clients: number;
  /** Its measured window, in seconds, on its own clock. */
  seconds: number;
  generatorCores: number;
  counts: TrialCounts;
  /** From send (the open model: from the due time) to answer. */
  latency: EncodedLatencies;
  /** Open model only: what became of its arrivals, and the service times. */
  open?: { counts: OpenCounts; service: EncodedLatencies };
}

export function encodeLatencies(samplesMs: readonly number[]): EncodedLatencies {
  const histogram = latencyHistogram();
  let maxMicros = 0;
  for (const ms of samplesMs) {
    const micros = latencyMicros(ms);
    histogram.recordValue(micros);
    maxMicros = Math.max(maxMicros, micros);
  }
  const encoded = hdr.encodeIntoCompressedBase64(histogram);
  histogram.destroy();
  return { histogram: encoded, maxMicros, count: samplesMs.length };
}

/** An agent's threads' results (merged already) as it sends them. */
export function agentTrialResult(
  merged: BenchThreadResult,
  process: Omit<AgentTrialResult, 'counts' | 'latency' | 'open'>,
): AgentTrialResult {
  const { latenciesMs, open, ...counts } = merged;
  return {
    ...process,
    counts,
    latency: encodeLatencies(latenciesMs),
    ...(open ? { open: { counts: openCounts(open), service: encodeLatencies(open.serviceMs) } } : {}),
  };
}

/** Several agents' latencies added into one histogram; the caller destroys it. */
export function addLatencies(parts: readonly EncodedLatencies[]): hdr.Histogram {
  const sum = latencyHistogram();
  for (const part of parts) {
    const decoded = hdr.decodeFromCompressedBase64(part.histogram);
    sum.add(decoded);
    decoded.destroy();
  }
  return sum;
}

/** The percentiles of several agents' latencies together, and their sum encoded. */
export function mergedLatencies(parts: readonly EncodedLatencies[]): {
  latency: LatencyPercentiles;
  histogram: string;
  count: number;
} {
  const sum = addLatencies(parts);
  const latency = summarizeHistogram(sum, Math.max(0, ...parts.map((p) => p.maxMicros)));
  const histogram = hdr.encodeIntoCompressedBase64(sum);
  const count = sum.totalCount;
  sum.destroy();
  return { latency, histogram, count };
}

/** The percentiles of one agent's own latencies. */
export function latencyOf(part: EncodedLatencies): LatencyPercentiles {
  return mergedLatencies([part]).latency;
}

const sumOf = (values: readonly number[]) => values.reduce((a, b) => a + b, 0);

/** Every agent's open counts summed. */
export function sumOpenCounts(results: readonly AgentTrialResult[]): OpenCounts {
  const all = results.flatMap((r) => (r.open ? [r.open.counts] : []));
  return {
    sent: sumOf(all.map((c) => c.sent)),
    dropped: sumOf(all.map((c) => c.dropped)),
    late: sumOf(all.map((c) => c.late)),
    goodHeld: sumOf(all.map((c) => c.goodHeld)),
  };
}
