/**
 * `reservebench agent`: a load agent for `bench --agents` (docs/scale.md). It reaches the bench's run
 * database on the server `--database-url` (or DATABASE_URL) names, database `--run` (else the URL's own),
 * and runs its share of every trial there until the bench is done.
 */
import { availableParallelism } from 'node:os';
import { runAgent } from '../../bench/agents/agent-process.ts';
import { withDatabase } from '../../database/database.ts';
import { Errors } from '../../errors.ts';
import { boundedInteger, databaseUrlFrom, shown, single } from '../cli-arguments.ts';
import { type ArgsOf, defineCommand, value } from '../command-definition.ts';

const OPTIONS = {
  'database-url': value("the bench's server (or DATABASE_URL): the agent's clients connect as this URL says"),
  run: value(
    "the bench's run database on that server, as the bench printed it (default: the URL's database)",
  ),
  threads: value('worker threads for its clients (default: one per core of this host)'),
};

type AgentArgs = ArgsOf<typeof OPTIONS>;

/** A run database's name, as the suite makes them. */
const RUN_DATABASE = /^reservebench_[a-z0-9_]+$/;

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

export async function agentCommand(args: AgentArgs): Promise<number> {
  const url = databaseUrlFrom(args);
  if (!url) throw Errors.badInput("agent needs the bench's server: --database-url URL or DATABASE_URL");
  const run = single('run', args.run);
  if (run !== undefined && !RUN_DATABASE.test(run)) {
    throw Errors.badInput(`--run takes a run database's name (reservebench_…), got ${shown(run)}`);
  }
  const threads = boundedInteger('threads', args.threads, 1, 64) ?? availableParallelism();
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
