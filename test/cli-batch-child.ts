/**
 * Many command lines that must be refused, in one process: each goes through the CLI's own `main()` and,
 * when it throws, `failureLine()`, exactly what the reservebench binary runs (cli.ts adds only the exit). Run
 * by runRefusals (bounded-cli.ts) in a child with a temp folder of its own; reads the cases from the file
 * named first and writes each one's exit code, stdout and stderr to the file named second. One child
 * instead of one per case: starting the harness through tsx takes seconds.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { failureLine, main } from '../harness/cli/main.ts';

interface RefusalCase {
  args: string[];
  env?: Record<string, string>;
  /** The folder it runs in, to see what it writes there. */
  cwd?: string;
}

const [input, output] = process.argv.slice(2);
const cases = JSON.parse(readFileSync(input ?? '', 'utf8')) as RefusalCase[];
const baseline = { ...process.env };

/** Runs one command line, with what it writes on stdout and stderr caught instead of printed. */
async function refused(one: RefusalCase): Promise<{ code: number; stdout: string; stderr: string }> {
  const written = { stdout: '', stderr: '' };
  const writers = { stdout: process.stdout.write, stderr: process.stderr.write };
  for (const stream of ['stdout', 'stderr'] as const) {
    process[stream].write = ((chunk: string | Uint8Array) => {
      written[stream] += String(chunk);
      return true;
    }) as typeof process.stdout.write;
  }
  process.env = { ...baseline, ...one.env };
  const home = process.cwd();
  if (one.cwd) process.chdir(one.cwd);
  try {
    return { code: await main(one.args), ...written };
  } catch (error: unknown) {
    const { line, exitCode } = failureLine(error);
    return { code: exitCode, stdout: written.stdout, stderr: written.stderr + line };
  } finally {
    process.chdir(home);
    process.stdout.write = writers.stdout;
    process.stderr.write = writers.stderr;
  }
}

const results = [];
for (const one of cases) results.push(await refused(one));
writeFileSync(output ?? '', JSON.stringify(results));
process.exit(0);
