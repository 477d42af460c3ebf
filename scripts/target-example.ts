/**
 * The reviewed example of `run --target` against two instances (reports/examples/target/): an embedded
 * PostgreSQL, two `serve --strategy hot-row --schema shop --node I/2 --allow-reset` processes sharing one
 * set of tables in it, this script as their supervisor (the --target-restart hook asks it to restart a
 * node), then `run --target url1,url2 --target-restart …`. Published only when the run passes.
 *
 *   npx tsx scripts/target-example.ts
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmbeddedServer } from '../harness/database/embedded-server.ts';
import { RESTART_HOOK, ServeProcess, startSupervisor } from './serve-nodes.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const server = await startEmbeddedServer();
const nodes = [1, 2].map(
  (i) =>
    new ServeProcess(
      [
        ...['--strategy', 'hot-row', '--schema', 'shop'],
        ...['--node', `${i}/2`, '--allow-reset', '--admission', '32:200', '--wait-ms', '10000'],
        ...['--expire-every-ms', '0'],
      ],
      server.adminUrl,
    ),
);
const supervisor = await startSupervisor(() => nodes);
const reports = mkdtempSync(join(tmpdir(), 'reservebench-target-example-'));
let code: number | null = 1;
try {
  const urls = (await Promise.all(nodes.map((n) => n.start()))).join(',');
  // Not spawnSync: this process must go on answering the restart hook while the run runs.
  const run = spawn(
    process.execPath,
    [
      join(root, 'bin', 'reservebench.js'),
      'run',
      '--target',
      urls,
      '--target-restart',
      RESTART_HOOK,
      '--reports',
      reports,
    ],
    {
      cwd: root,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, TARGET_CONTROL_URL: supervisor.url },
    },
  );
  code = await new Promise<number | null>((resolve) => run.on('close', resolve));
  if (code === 0) {
    const example = join(root, 'docs', 'examples', 'target');
    rmSync(example, { recursive: true, force: true });
    cpSync(join(reports, 'latest'), example, { recursive: true });
    console.error('target-example: reports/examples/target refreshed');
  } else {
    console.error(`target-example: the run exited ${code}; reports/examples/target left as it was`);
  }
} finally {
  await Promise.all(nodes.map((n) => n.stop()));
  await supervisor.close();
  await server.stop({ keepData: false });
  rmSync(reports, { recursive: true, force: true });
}
process.exit(code ?? 1);
