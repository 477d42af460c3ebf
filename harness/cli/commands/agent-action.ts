/** What `reservebench agent` does (its options: agent-options.ts), imported only when it runs. */

import { availableParallelism } from 'node:os';
import { runAgent } from '../../bench/agents/agent-process.ts';
import { withDatabase } from '../../database/database.ts';
import { Errors } from '../../errors.ts';
import { databaseUrlFrom } from '../cli-arguments.ts';
import type { CommandContext } from '../command-definition.ts';
import type { AgentArgs } from './agent-options.ts';

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
