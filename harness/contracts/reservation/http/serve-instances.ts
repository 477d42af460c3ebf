/**
 * `serve --instances N`: N `serve` processes of one service, as N instances behind a load balancer — one
 * run database (embedded by default, or created on the server `--database-url` names), the strategy's
 * tables in one schema they all share (the first instance makes it, service-tables.ts), instance i node
 * i of N (a memory design sells its share), each on its own port (`--port P`: P, P+1, …; 0: any free
 * one each). Their gate is whatever `--gate` says: `local` gives each its own (LIMIT per instance, so the
 * database may see N × LIMIT), a shared gate one LIMIT for them all. Each instance's lines are relayed
 * prefixed `[i]`. SIGTERM/SIGINT drain every instance (each stops admitting and finishes what it admitted),
 * then the run database is dropped. The database URL reaches the instances in their environment, never in
 * argv, where `ps` would show a password; so does a Redis URL.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { ServiceSettings } from '../../../contract/contract.ts';
import { openRunDatabase, type RunDatabase } from '../../../database/database.ts';
import { Errors } from '../../../errors.ts';

const BIN = new URL('../../../../bin/reservebench.js', import.meta.url).pathname;
/** The schema every instance shares. */
export const INSTANCES_SCHEMA = 'service_instances';

/** What `serve` gives every service, and how many instances; `design` as given on the command line. */
export interface InstancesOptions extends ServiceSettings {
  instances: number;
}

/** Instance i's command line (0-based), the shared parts first. */
export function instanceArgs(options: InstancesOptions, i: number): string[] {
  const { admission, gate } = options;
  return [
    'serve',
    `--strategy=${options.design}`,
    `--port=${options.port === 0 ? 0 : options.port + i}`,
    `--schema=${INSTANCES_SCHEMA}`,
    `--node=${i + 1}/${options.instances}`,
    `--admission=${admission.limit}:${admission.maxWaiting}`,
    `--wait-ms=${admission.waitMs}`,
    `--work-ms=${options.workMs}`,
    `--stock=${options.stock}`,
    `--expire-every-ms=${options.expireEveryMs}`,
    `--gate=${gate.kind}`,
    ...(gate.kind === 'local'
      ? []
      : [`--gate-failure=${gate.failureMode}`, `--gate-lease-ms=${gate.leaseMs}`]),
    ...(options.logJson ? ['--log-json'] : []),
    ...(options.allowReset ? ['--allow-reset'] : []),
  ];
}

interface Instance {
  child: ChildProcess;
  /** Its URL once it printed `listening on`. */
  listening: Promise<string>;
  exited: Promise<number | string>;
}

function startInstance(options: InstancesOptions, db: RunDatabase, i: number): Instance {
  const { REDIS_URL: _unused, ...env } = process.env;
  const child = spawn(process.execPath, [BIN, ...instanceArgs(options, i)], {
    env: {
      ...env,
      DATABASE_URL: db.connectionString,
      ...(options.gate.redisUrl ? { REDIS_URL: options.gate.redisUrl } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | string>((resolve) =>
    child.once('exit', (code, signal) => resolve(signal ?? code ?? 0)),
  );
  const listening = new Promise<string>((resolve, reject) => {
    const relay = (stream: NodeJS.ReadableStream | null, out: NodeJS.WriteStream, last: string[]) =>
      createInterface({ input: stream as NodeJS.ReadableStream }).on('line', (line) => {
        last.push(line);
        out.write(`[${i + 1}] ${line}\n`);
        const url = /^listening on (http:\/\/\S+)/.exec(line)?.[1];
        if (url) resolve(url);
      });
    const errors: string[] = [];
    relay(child.stdout, process.stdout, []);
    relay(child.stderr, process.stderr, errors);
    void exited.then((how) =>
      reject(Errors.badInput(`instance ${i + 1} exited (${how}) before listening: ${errors.join(' ')}`)),
    );
  });
  listening.catch(() => undefined);
  return { child, listening, exited };
}

/** Asks every instance still running to drain (SIGTERM) and waits for all of them to exit. */
async function stopAll(instances: readonly Instance[]): Promise<void> {
  for (const { child } of instances) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  }
  await Promise.all(instances.map((instance) => instance.exited));
}

export async function serveInstances(options: InstancesOptions): Promise<number> {
  const db = await openRunDatabase({ databaseUrl: options.databaseUrl, postgres: options.postgres });
  // This process stops the instances, then drops the database: the embedded server's hooks must not.
  const signal = new Promise<NodeJS.Signals>((resolve) => {
    for (const name of ['SIGINT', 'SIGTERM'] as const) {
      process.removeAllListeners(name);
      process.once(name, () => resolve(name));
    }
  });
  const instances: Instance[] = [];
  try {
    // One after the other: the first makes the shared schema, the others find it.
    for (let i = 0; i < options.instances; i++) {
      const instance = startInstance(options, db, i);
      instances.push(instance);
      await Promise.race([instance.listening, signal]);
    }
    const urls = await Promise.race([Promise.all(instances.map((x) => x.listening)), signal]);
    if (Array.isArray(urls)) {
      process.stdout.write(`${options.instances} instances listening: ${urls.join(' ')}\n`);
      for (const [i, x] of instances.entries()) {
        void x.exited.then((how) => process.stdout.write(`instance ${i + 1} exited (${how})\n`));
      }
      process.stdout.write(`${await signal}: draining every instance\n`);
    }
  } finally {
    await stopAll(instances);
    for (const line of await db.close({ keep: false })) process.stdout.write(`${line}\n`);
  }
  process.stdout.write('stopped\n');
  return 0;
}
