/**
 * The report document of `reservebench run` (report.json, `run --json`) defined once, with zod: the run's
 * own fields (its verdict, environment, sources) joined with every contract's (harness/contracts/<id>/,
 * listed in harness/contracts/index.ts). The TypeScript type `Report` is inferred from it, every report is
 * checked against it before it is written, and `docs/report.schema.json` is generated from it (`npx tsx
 * scripts/report-schema.ts`; a test fails when the committed file is stale). Objects are strict: a field
 * the schema does not name is an error, so the schema cannot fall behind the code without a test noticing.
 */
import { z } from 'zod';
import { CAPABILITIES, type Capability } from '../../strategies/contract.ts';
import { CONTRACTS } from '../contracts/index.ts';
import { CLUSTER_BACKENDS } from '../database/environment.ts';
import { configurationSchema } from './configuration-schema.ts';

export const environmentSchema = z
  .strictObject({
    node: z.string().describe('Node.js version of the harness'),
    client: z
      .strictObject({ reservebench: z.string(), pg: z.string() })
      .optional()
      .describe(
        'the harness version and the PostgreSQL driver (pg) version; absent in reports of 0.1.0 before it was recorded',
      ),
    postgres: z.string().describe('server_version of the database the run used'),
    settings: z
      .record(z.string(), z.string())
      .describe(
        'Server settings that matter to the numbers, as the run read them (synchronous_commit, fsync, …)',
      ),
    cpus: z.number().int().positive(),
    commit: z.string().describe('git commit of the harness (short), or "unknown"'),
    database: z
      .enum(['embedded', 'url', 'target'])
      .describe(
        'the embedded server, one given by --database-url, or none: a black box driven over HTTP (run --target)',
      ),
    capabilities: z
      .strictObject(
        Object.fromEntries(CAPABILITIES.map((c) => [c, z.union([z.literal(true), z.string()])])) as Record<
          Capability,
          z.ZodUnion<[z.ZodLiteral<true>, z.ZodString]>
        >,
      )
      .optional()
      .describe(
        "What the server let the run do, probed on connect (skipLocked, nowait, advisoryLocks, lockView, readCommitted, repeatableRead, serializable, returningOld, synchronousCommit): true, or the server's answer refusing it; a case needing a refused one is n/a. Absent for a black box",
      ),
    cluster: z
      .strictObject({
        backend: z.enum(CLUSTER_BACKENDS),
        manager: z.string().optional().describe('the failover manager and its version (patroni 3.0.2)'),
        members: z.number().int().nonnegative().optional().describe("a user's cluster: its members"),
        replication: z.enum(['sync', 'async']).optional().describe("a user's cluster: as its primary says"),
      })
      .optional()
      .describe(
        'the cluster the cluster scenarios ran on (run --cluster; docs/cluster.md); the embedded one is made per case, shaped as each scenario says',
      ),
  })
  .describe('What a reader needs to judge the numbers');

export const sourceEntrySchema = z
  .strictObject({
    kind: z.enum(['design', 'scenario']),
    id: z.string(),
    file: z.string().describe('the entry file, relative to the repository when inside it, else absolute'),
    sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .describe('over every file of `files`, each as its path and its own SHA-256, in path order'),
    files: z
      .array(z.string())
      .describe(
        'the entry file and the local files it pulls in (imports, SQL it reads), transitively; the harness is not followed',
      ),
  })
  .describe('Which code a design or scenario was, so two runs of different code can be told apart');

/** `A | B` as `A & B`: every contract's fields in one document. */
type Joined<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/** Every contract's fields of the report. */
const CONTRACT_FIELDS = Object.assign({}, ...CONTRACTS.map((c) => c.report.shape)) as Joined<
  (typeof CONTRACTS)[number]['report']['shape']
>;

export const reportSchema = z
  .strictObject({
    ok: z.boolean().describe('every case met its expectation (and, with --require-coverage, was covered)'),
    generatedAt: z.iso.datetime(),
    environment: environmentSchema,
    configuration: configurationSchema.optional(),
    sources: z
      .array(sourceEntrySchema)
      .optional()
      .describe(
        'every design and scenario file the run ran, with its SHA-256 (absent in reports written before it was recorded)',
      ),
    uncovered: z.array(z.string()).describe('cases not covered, when --require-coverage made them fatal'),
    ...CONTRACT_FIELDS,
    unhandledErrors: z
      .number()
      .int()
      .positive()
      .optional()
      .describe(
        'errors nothing handled during the run (a forgotten promise, a throw from a timer): any fails it',
      ),
  })
  .meta({ title: 'reservebench run report', description: 'report.json of `reservebench run`' });

export type Report = z.infer<typeof reportSchema>;

/** The report, once its JSON (as written) matched the schema; throws naming the first flaw. */
export function checkedReport(report: Report): Report {
  const written: unknown = JSON.parse(JSON.stringify(report));
  const parsed = reportSchema.safeParse(written);
  if (parsed.success) return report;
  const issue = parsed.error.issues[0];
  throw new Error(
    `the report does not match its schema (harness/report/report-schema.ts) at ${issue?.path.join('.') || 'the document'}: ${issue?.message ?? 'invalid'}`,
  );
}

/** The JSON Schema of report.json (docs/report.schema.json). */
export function reportJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(reportSchema, { target: 'draft-2020-12' });
}
