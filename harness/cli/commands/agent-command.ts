/**
 * `reservebench agent`: a load agent for `bench --agents` (docs/scale.md). It reaches the bench's run
 * database on the server `--database-url` (or DATABASE_URL) names, database `--run` (else the URL's own),
 * and runs its share of every trial there until the bench is done.
 */
import { availableParallelism } from 'node:os';
import { runAgent } from '../../bench/agents/agent-process.ts';
import { withDatabase } from '../../database/database.ts';
import { Errors } from '../../errors.ts';
import { databaseUrlFrom, shown } from '../cli-arguments.ts';
import { type CommandContext, defineCommand, type ParsedOf } from '../command-definition.ts';
import { integer, parsed } from '../option-types.ts';
import { databaseOption } from './shared-options.ts';

/** A run database's name, as the suite makes them. */
const RUN_DATABASE = /^reservebench_[a-z0-9_]+$/;

function readRun(run: string, label: string): string {
  if (!RUN_DATABASE.test(run)) {
    throw Errors.badInput(`${label} takes a run database's name (reservebench_…), got ${shown(run)}`);
  }
  return run;
}

const OPTIONS = {
  ...databaseOption("the bench's server: the agent's clients connect as this URL says"),
  run: parsed("the bench's run database on that server, as the bench printed it", {
    form: 'NAME',
    absent: "the URL's database",
    read: readRun,
  }),
  threads: integer('worker threads for its clients', {
    min: 1,
    max: 64,
    absent: 'one per core of this host',
  }),
};

type AgentArgs = ParsedOf<typeof OPTIONS>;

/** An agent stops at once on a signal: it holds only connections and threads, which go with the process. */
function exitOnSignal(say: (line: string) => void): void {
  for (const [name, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    process.removeAllListeners(name);
    process.once(name, () => {
      say(`agent: ${name}, leaving the bench`);
      process.exit(code);
    });
  }
}

export async function agentCommand(args: AgentArgs, _context: CommandContext): Promise<number> {
  const url = databaseUrlFrom(args['database-url']);
  if (!url) throw Errors.badInput("agent needs the bench's server: --database-url URL or DATABASE_URL");
  const { run } = args;
  const threads = args.threads ?? availableParallelism();
  const connectionString = run ? withDatabase(url, run) : url;
  const say = (line: string) => process.stderr.write(`${line}\n`);
  exitOnSignal(say);
  return runAgent({
    connectionString,
    database: run ?? decodeURIComponent(new URL(url).pathname.slice(1)),
    threads,
    say,
  });
}

export const AGENT = defineCommand({
  name: 'agent',
  describe: 'a load agent for `bench --agents`: runs its share of every trial against the bench’s database',
  options: OPTIONS,
  run: agentCommand,
});
