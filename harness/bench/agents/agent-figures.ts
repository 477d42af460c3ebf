/**
 * What a bench reports of its load agents, per trial and per series: each agent's host, share, CPU and
 * dropped arrivals beside the merged figures, so that a reader sees when an agent — the generator, not the
 * design — was the limit. Types and pure summaries only, below the bench's own modules.
 */
import { median } from 'simple-statistics';
import type { LatencyPercentiles } from '../../driver/latency.ts';
import { CLIENT_BOUND_CORES } from '../saturation.ts';

/** One agent's part of one trial. */
export interface AgentFigure {
  /** 1-based: client i and arrival i of a series went to agent (i mod N) + 1. */
  agent: number;
  host: string;
  pid: number;
  /** Cores its host offers (availableParallelism there). */
  cores: number;
  /** Worker threads that ran its clients. */
  threads: number;
  clients: number;
  /** Answers it counted in the measured window. */
  requests: number;
  /** Those answers by outcome (ERROR among them). */
  outcomes: Record<string, number>;
  /** Open model: its arrivals no client of its could take within the grace, never sent; 0 in a closed loop. */
  dropped: number;
  /** Its own measured window, in seconds. */
  seconds: number;
  /** CPU time ÷ wall time of its process over its window, in cores. */
  generatorCores: number;
  clientBound: boolean;
  latency: LatencyPercentiles;
  /** Its latency histogram (µs) in HdrHistogram's compressed base64 form, which any HdrHistogram reads. */
  histogram: string;
}

/** A trial driven by agents: theirs, and the histogram the bench merged from theirs. */
export interface AgentsTrial {
  agents: AgentFigure[];
  /** Every agent's histogram added bucket for bucket (µs, compressed base64): the trial's latencies. */
  latencyHistogram: string;
}

/** One agent over a series' trials. */
export interface AgentSeriesFigure {
  agent: number;
  host: string;
  clients: number;
  /** Summed over the trials. */
  requests: number;
  dropped: number;
  /** Median over the trials. */
  generatorCores: number;
  /** In some trial. */
  clientBound: boolean;
  /** Medians over the trials of its own p50 and p99. */
  p50: number;
  p99: number;
}

export const isClientBound = (cores: number) => cores >= CLIENT_BOUND_CORES;

const hundredths = (x: number) => Math.round(x * 100) / 100;

/** Each agent over the trials that it served (all of them, unless a trial failed before it reported). */
export function agentsOverTrials(trials: readonly { agents?: readonly AgentFigure[] }[]): {
  agents?: AgentSeriesFigure[];
} {
  const figures = trials.flatMap((t) => t.agents ?? []);
  if (figures.length === 0) return {};
  const numbers = [...new Set(figures.map((f) => f.agent))].sort((a, b) => a - b);
  return {
    agents: numbers.map((agent) => {
      const mine = figures.filter((f) => f.agent === agent);
      const mid = (value: (f: AgentFigure) => number) => hundredths(median(mine.map(value)));
      return {
        agent,
        host: mine[0]?.host ?? '',
        clients: mine[0]?.clients ?? 0,
        requests: mine.reduce((n, f) => n + f.requests, 0),
        dropped: mine.reduce((n, f) => n + f.dropped, 0),
        generatorCores: mid((f) => f.generatorCores),
        clientBound: mine.some((f) => f.clientBound),
        p50: mid((f) => f.latency.p50),
        p99: mid((f) => f.latency.p99),
      };
    }),
  };
}
