/** A real `reservebench serve` child on a free port, known by the URL its "listening on" line names. */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { cliArgv } from './cli-child.ts';

export interface Served {
  child: ChildProcessByStdio<null, Readable, Readable>;
  url: string;
  /** Its `listening on` line (a `starting on` line comes before it). */
  listening: string;
  /** Every stdout line so far (the JSON request log included). */
  lines: string[];
  /** Everything it wrote on stderr so far. */
  stderr(): string;
  exited: Promise<number | null>;
}

/** `env`: added to the child's environment (a TMPDIR of its own, to see what it leaves). */
export async function startServe(
  serverUrl: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<Served> {
  const child = spawn(process.execPath, cliArgv(['serve', '--port', '0', ...args]), {
    env: { ...process.env, DATABASE_URL: serverUrl, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const lines: string[] = [];
  let listening = '';
  const reader = createInterface({ input: child.stdout });
  const url = await new Promise<string>((resolve, reject) => {
    reader.on('line', (line) => {
      lines.push(line);
      const found = /listening on (http:\/\/\S+)/.exec(line)?.[1];
      if (found) {
        listening = line;
        resolve(found);
      }
    });
    child.once('close', () => reject(new Error(`serve exited: ${lines.join('\n')}\n${stderr}`)));
  });
  return { child, url, listening, lines, stderr: () => stderr, exited };
}
