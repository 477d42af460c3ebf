/**
 * The document of `reservebench bench` (its report.json, `bench --json`): the run report's environment with
 * a `bench` and an `uncontended` section instead of cases. Its TypeScript type lives with the bench
 * (harness/report/bench/bench-report.ts); a test holds the two equal, and `docs/bench-report.schema.json` is
 * generated from this definition.
 */
import { z } from 'zod';
import { latencySchema } from '../verdict/case-result-schema.ts';
import { configurationSchema } from './configuration-schema.ts';
import { environmentSchema, sourceEntrySchema } from './report-schema.ts';

const count = z.number().int().nonnegative();
const counts = z.record(z.string(), count);

const lockWaitSchema = z
  .strictObject({
    meanWaiters: z.number().nonnegative().describe('backends waiting on a lock, mean over the samples'),
    shareOfTime: z.number().min(0).max(1).describe('share of the samples with at least one waiter'),
  })
  .describe('pg_locks sampled during the measured window');

const saturationSchema = z
  .strictObject({
    generatorCores: z
      .number()
      .nonnegative()
      .describe(
        "CPU time ÷ wall time of the load generator, in cores (with agents: the busiest agent's process)",
      ),
    serverCores: z
      .number()
      .nonnegative()
      .nullable()
      .describe("the server's backends and auxiliary processes, in cores; null when /proc cannot see them"),
    clientBound: z
      .boolean()
      .describe('the generator was busy enough that the series measured it as much as the design'),
  })
  .describe('How busy the generator and the server were');

const openSchema = z
  .strictObject({
    rate: z.number().positive().describe('arrivals per second offered, all clients together (`--rate`)'),
    arrivals: z.enum(['constant', 'poisson']).describe('how the arrivals are spaced (`--arrivals`)'),
    seed: z.number().int().nonnegative().describe("the Poisson schedule's seed (`--seed`)"),
    latencyLimitMs: z
      .number()
      .positive()
      .nullable()
      .describe('answers slower than this are late (`--latency-limit`); null when not given'),
    offered: count.describe('arrivals taken in the measured window: sent + dropped'),
    sent: count,
    dropped: count.describe('arrivals no client could take within the grace, never sent'),
    late: count.describe('answers slower than the latency limit, from their due time'),
    goodput: z.number().nonnegative().describe('HELD answers within the latency limit per second'),
    serviceLatency: latencySchema.describe(
      'from send to answer, in ms: the service time a closed loop reports (latency is from the due time)',
    ),
  })
  .describe('The open model: arrivals on a schedule, latency corrected for coordinated omission');

const tallySchema = z
  .record(z.string(), count)
  .describe(
    "the contract's own counts over the series, warm-up included (each contract names its own: e.g. the answers that created a row and the distinct keys answered, which its audit holds equal to the rows recorded)",
  );

const agentSchema = z
  .strictObject({
    agent: z
      .number()
      .int()
      .positive()
      .describe('1-based: client i and arrival i went to agent (i mod N) + 1'),
    host: z.string().describe("the agent's host name"),
    pid: z.number().int().positive(),
    cores: z.number().int().positive().describe('cores its host offers'),
    threads: z.number().int().positive().describe('worker threads that ran its clients'),
    clients: z.number().int().positive(),
    requests: count.describe('answers it counted in the measured window'),
    outcomes: counts.describe('those answers by outcome'),
    dropped: count.describe('open model: its arrivals no client of its could take within the grace'),
    seconds: z.number().nonnegative().describe('its own measured window'),
    generatorCores: z
      .number()
      .nonnegative()
      .describe("CPU time ÷ wall time of the agent's process over its window, in cores"),
    clientBound: z.boolean().describe('it used enough CPU that it, not the design, may have been the limit'),
    latency: latencySchema.describe('its own answers, in ms'),
    histogram: z.string().describe("its latency histogram (µs), HdrHistogram's compressed base64 form"),
  })
  .describe("One load agent's part of a trial (`bench --agents`)");

const agentSeriesSchema = z
  .strictObject({
    agent: z.number().int().positive(),
    host: z.string(),
    clients: z.number().int().positive(),
    requests: count.describe('summed over the trials'),
    dropped: count.describe('summed over the trials'),
    generatorCores: z.number().nonnegative().describe('median over the trials'),
    clientBound: z.boolean().describe('in some trial'),
    p50: z.number().describe('median over the trials of its own p50, ms'),
    p99: z.number().describe('median over the trials of its own p99, ms'),
  })
  .describe('One load agent over the trials of a series');

const measured = {
  status: z
    .enum(['ok', 'fail'])
    .describe(
      "ok when the audit passed (its contract's audit: e.g. drift 0, nothing oversold, each key answered once)",
    ),
  throughput: z
    .number()
    .nonnegative()
    .describe('answers the contract counts (its bench unit: HELD, …) per second in the measured window'),
  latency: latencySchema,
  requests: count,
  outcomes: counts,
  retries: count.describe('a client turned away by admission tried again'),
  designRetries: counts.describe('retries the design made itself, by reason'),
  errors: counts,
  lockWait: lockWaitSchema,
  saturation: saturationSchema,
  drift: z.number().int(),
  oversold: count,
  problems: z.array(z.string()),
  open: openSchema.optional(),
  tally: tallySchema.optional(),
};

const trialSchema = z
  .strictObject({
    trial: z.number().int().positive(),
    startedAt: z.iso.datetime().describe('when the measured window opened'),
    ...measured,
    agents: z
      .array(agentSchema)
      .optional()
      .describe('`bench --agents` only: each agent; the trial figures are theirs merged (counts summed)'),
    latencyHistogram: z
      .string()
      .optional()
      .describe(
        "`bench --agents` only: the agents' histograms added bucket for bucket (µs, compressed base64); latency is read from it",
      ),
  })
  .describe('One run of a series');

const intervalSchema = z.strictObject({ low: z.number(), high: z.number() });

const seriesSchema = z
  .strictObject({
    strategy: z.string(),
    clients: z.number().int().positive(),
    admission: z.string().nullable().describe('`limit:waiting`, or null without admission'),
    durability: z
      .enum(['on', 'off'])
      .describe("its sessions' synchronous_commit: on, each commit waits for its WAL flush (`--durability`)"),
    ...measured,
    median: z.strictObject({ throughput: z.number().nonnegative(), p99: z.number() }),
    ci95: z
      .strictObject({ throughput: intervalSchema, p99: intervalSchema })
      .nullable()
      .describe('95% percentile-bootstrap interval of each median; null with fewer than two passing trials'),
    agents: z
      .array(agentSeriesSchema)
      .optional()
      .describe('`bench --agents` only: each agent over the trials'),
    trials: z.array(trialSchema),
  })
  .describe(
    'A series (strategy × durability × clients × admission) over its trials; counts summed over the trials',
  );

const uncontendedSchema = z
  .strictObject({
    strategy: z.string(),
    opsPerSecond: z.number().nonnegative(),
    latency: z.strictObject({ mean: z.number(), p99: z.number() }),
    samples: count,
  })
  .describe('One client, no contention (tinybench)');

const burstAgentSchema = z
  .strictObject({
    agent: z.number().int().positive().describe('1-based: request i went to agent (i mod N) + 1'),
    host: z.string().describe("the agent's host name"),
    pid: z.number().int().positive(),
    cores: z.number().int().positive().describe('cores its host offers'),
    threads: z.number().int().positive().describe('worker threads, one share of the burst each'),
    requests: count.describe('the requests it sent'),
    held: count.describe('those that got a unit'),
    generatorCores: z
      .number()
      .nonnegative()
      .describe(
        "CPU time ÷ wall time of the agent's process over its whole order (connecting included), in cores",
      ),
    clientBound: z.boolean().describe('it used enough CPU that it, not the design, may have been the limit'),
  })
  .describe("One load agent's part of a burst (`bench --burst --agents`)");

const burstSchema = z
  .strictObject({
    strategy: z.string(),
    durability: z.enum(['on', 'off']).describe("its sessions' synchronous_commit (`--durability`)"),
    admission: z
      .string()
      .nullable()
      .describe("`limit:waiting` of each process's gate, or null without admission"),
    requests: z
      .number()
      .int()
      .positive()
      .describe('distinct users, one reserve each, released at one instant'),
    stock: z.number().int().positive().describe('units loaded before the release (`--stock`)'),
    connections: z.number().int().positive().describe('the pool of server connections the requests shared'),
    processes: z.number().int().positive(),
    threads: z.number().int().nonnegative().describe('worker threads over all processes, one share each'),
    status: z
      .enum(['ok', 'fail'])
      .describe('ok: every request answered, units sold = HELD = min(stock, requests)'),
    soldOutMs: z
      .number()
      .nonnegative()
      .nullable()
      .describe('release to the answer that took the last unit; null when the units did not all go'),
    answeredMs: z.number().nonnegative().describe('release to the last answer of all'),
    latency: latencySchema.describe('release to each answer, in ms'),
    outcomes: counts.describe(
      'final answers: HELD, SOLD_OUT, …, GAVE_UP_503 (every attempt turned away), ERROR',
    ),
    retries: count.describe('503s of the admission gate retried by their clients'),
    errors: counts.describe('ERROR answers by SQLSTATE'),
    fairness: z
      .strictObject({
        firstArrivals: count.describe(
          "min(stock, requests): the first requests to arrive, by the harness's record",
        ),
        held: count.describe('how many of them got a unit'),
      })
      .describe('how many of the first arrivals got a unit'),
    peakConnections: count.describe("the burst's connections in pg_stat_activity, most seen at once"),
    timeline: z
      .array(
        z.strictObject({
          ms: z.number().nonnegative().describe('from the release'),
          unitsLeft: z.number().int().describe('the stock less the HELD answers given by then'),
          answered: count.describe('requests answered by then'),
        }),
      )
      .optional()
      .describe('units left and answers so far, at even steps from the release to the last answer'),
    agents: z
      .array(burstAgentSchema)
      .optional()
      .describe("`bench --agents` only: each agent; its records were measured with every other agent's"),
    unitsSold: z.number().int().describe("stock − the design's remaining() afterwards (the harness's read)"),
    oversold: count,
    drift: z.number().int().describe('units sold − HELD answers'),
    problems: z.array(z.string()),
  })
  .describe('One flash-sale burst (`bench --burst`)');

export const benchReportSchema = z
  .strictObject({
    ok: z.boolean().describe('every series ran and passed its audit'),
    contract: z
      .string()
      .optional()
      .describe(
        'the contract the designs are of: what throughput counts; absent in reports written before it was recorded (the first contract listed)',
      ),
    generatedAt: z.iso.datetime(),
    environment: environmentSchema,
    configuration: configurationSchema.optional(),
    sources: z
      .array(sourceEntrySchema)
      .optional()
      .describe(
        'every design the bench ran, with its SHA-256 (absent in reports written before it was recorded)',
      ),
    cases: z.tuple([]).describe('always empty: a bench report has series, not cases'),
    bench: z.array(seriesSchema),
    uncontended: z.array(uncontendedSchema),
    burst: z.array(burstSchema).optional().describe('`bench --burst` only, with no series'),
  })
  .meta({ title: 'reservebench bench report', description: 'report.json of `reservebench bench`' });

export type BenchReportDocument = z.infer<typeof benchReportSchema>;

/** The JSON Schema of a bench report.json (docs/bench-report.schema.json). */
export function benchReportJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(benchReportSchema, {
    target: 'draft-2020-12',
    // zod writes the empty tuple as `prefixItems: []`, which the 2020-12 meta-schema rejects (minItems 1).
    override: ({ jsonSchema }) => {
      if (Array.isArray(jsonSchema.prefixItems) && jsonSchema.prefixItems.length === 0) {
        delete jsonSchema.prefixItems;
        jsonSchema.maxItems = 0;
      }
    },
  });
}
