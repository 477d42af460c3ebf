/**
 * What `reservebench --help` says the command line is: every command with the words it takes, and each
 * command's flags (the options `--help` marks `[boolean]`). Read from the real command line, so a test
 * built on it covers whatever yargs was given, however it was declared.
 */
import { runCli } from './run-cli.ts';

export interface HelpEntry {
  command: string;
  /** The command's positionals (`spec <file>`: `file`). */
  words: string[];
  /** Every option that takes no value, `help` included. */
  flags: string[];
}

async function help(args: string[]): Promise<string> {
  const run = await runCli([...args, '--help']);
  if (run.code !== 0) throw new Error(`${args.join(' ')} --help exited ${run.code}: ${run.stderr}`);
  return run.stdout;
}

/** The options of one command's `--help`: each block from `--name` to the next, with its `[type]`. */
function flagsIn(text: string): string[] {
  const options = text.slice(text.indexOf('\nOptions:'));
  const blocks = options.split(/\n(?= {2}(?:-\w, | {4})?--)/).slice(1);
  return blocks.flatMap((block) => {
    const name = /^ {2}(?:-\w, | {4})?--([A-Za-z][\w-]*)/.exec(block)?.[1];
    return name && block.includes('[boolean]') ? [name] : [];
  });
}

/** The commands `reservebench --help` lists, in its order, with the words each takes. */
export async function helpCommands(): Promise<Omit<HelpEntry, 'flags'>[]> {
  const top = await help([]);
  const commands = [...top.matchAll(/^ {2}reservebench (\S+)((?: [<[][\w-]+[>\]])*)/gm)].map((m) => ({
    command: m[1] ?? '',
    words: [...(m[2] ?? '').matchAll(/[<[]([\w-]+)[>\]]/g)].map((w) => w[1] ?? ''),
  }));
  if (commands.length === 0) throw new Error(`--help lists no command:\n${top}`);
  return commands;
}

export async function helpListing(): Promise<HelpEntry[]> {
  const commands = await helpCommands();
  return Promise.all(commands.map(async (c) => ({ ...c, flags: flagsIn(await help([c.command])) })));
}
