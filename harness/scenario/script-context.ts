/**
 * The ScriptContext a script scenario runs against: every phase goes through the strategy on real
 * connections (the worker-thread driver for reservations, sessions of their own for lifecycle jobs, a
 * child process for crashes); answers and observations are collected for the audit.
 */
import { setTimeout as nextLook } from 'node:timers/promises';
import pg from 'pg';
import type {
  IsolationLevel,
  ReserveRequest,
  SessionContext,
  Strategy,
  StrategyRef,
} from '../../strategies/contract.ts';
import { sqlstateOf } from '../../strategies/support/sqlstate.ts';
import { startCommitAckProxy } from '../crash/commit-ack-proxy.ts';
import { runUntilStage } from '../crash/crash-runner.ts';
import type { RunDatabase } from '../database/database.ts';
import type { ClientDriver } from '../driver/client-pool.ts';
import type { RequestResult } from '../driver/client-task.ts';
import { sessionOptions } from '../driver/client-task.ts';
import { nodeIdentity } from '../driver/node-identity.ts';
import { oneLine } from '../errors.ts';
import { startReservationService } from '../http/reservation-service.ts';
import { checkAnswer } from '../registry/strategy-module.ts';
import type { LifecycleFacts } from '../verdict/invariants.ts';
import { PhaseRecorder } from './phases.ts';
import type { Observations, ScenarioParams, ScriptContext } from './scenario.ts';

export interface ScriptRun {
  ctx: ScriptContext;
  /** Every request the scenario sent (a crashed child's too, which never got an answer). */
  sent: ReserveRequest[];
  /** Answers the scenario's clients received; a scenario driving HTTP adds its own with `answered`. */
  answers: RequestResult[];
  observations: Observations;
  lifecycle: LifecycleFacts;
  /** Contract operations the scenario called, and the pause points it killed them at. */
  exercised: Set<string>;
  pausePoints: Set<string>;
  /** Which answers came in which batch, and the lifecycle steps between them (per-phase outcomes). */
  phases: PhaseRecorder;
}

/** Pause points do nothing in a lifecycle session: only the crash child stops at one. */
const passThrough = async () => undefined;

/** run-case never starts a scenario whose operations the strategy lacks; this guards one that forgot to declare. */
function missing(strategy: Strategy, operation: string): Error {
  return new Error(`the scenario calls ${operation}, which ${strategy.id} does not implement`);
}

export function scriptContext(
  db: RunDatabase,
  pool: ClientDriver,
  ref: StrategyRef,
  schema: string,
  params: ScenarioParams,
  session: { timeoutMs: number; isolation?: IsolationLevel; settings?: Readonly<Record<string, string>> },
): ScriptRun {
  const { timeoutMs, isolation, settings } = session;
  const connection = {
    connectionString: db.connectionString,
    schema,
    ...(isolation ? { isolation } : {}),
    ...(settings ? { settings } : {}),
  };
  const { strategy, moduleUrl } = ref;
  const answers: RequestResult[] = [];
  const sent: ReserveRequest[] = [];
  const observations: Observations = {};
  const lifecycle = { released: new Set<string>(), expireRan: false, disabled: new Set<string>() };
  const exercised = new Set<string>();
  const pausePoints = new Set<string>();
  let sessionCount = 0;
  let crashCount = 0;
  const phases = new PhaseRecorder();
  /** The incarnation each node last served in: a new one is a restart, a step of its own. */
  const incarnations = new Map<string, string>();
  let overHttp: ((from: number, to: number) => void) | undefined;
  /** Adds answers to the case's list; `done` closes the batch they belong to. */
  const collect = (results: readonly RequestResult[], done: (from: number, to: number) => void) => {
    const from = answers.length;
    answers.push(...results);
    done(from, answers.length);
  };

  const ctx: ScriptContext = {
    params,
    strategy,
    async reserve(requests, nodeOf, options) {
      sent.push(...requests);
      exercised.add('reserve');
      const rollbackAt = options?.rollbackAt;
      const perClient = options?.perClient ?? 1;
      if (rollbackAt) pausePoints.add(`reserve:${rollbackAt}`);
      for (let index = 0; index < Math.ceil(requests.length / perClient); index++) {
        const node = nodeOf?.(index);
        if (!node) continue;
        const before = incarnations.get(node.name);
        if (before !== undefined && before !== node.incarnation) phases.step(`restart of ${node.name}`);
        incarnations.set(node.name, node.incarnation);
      }
      const done = phases.send(requests.map((r) => r.requestKey));
      const clients = await pool.drive({
        strategyModuleUrl: moduleUrl,
        connection,
        clients: Array.from({ length: Math.ceil(requests.length / perClient) }, (_, index) => {
          const node = nodeOf?.(index);
          const own = requests.slice(index * perClient, (index + 1) * perClient);
          return { index, requests: own, ...(node ? { node } : {}), ...(rollbackAt ? { rollbackAt } : {}) };
        }),
        timeoutMs,
      });
      const results = clients.flatMap((c) => c.results);
      collect(results, done);
      return results;
    },
    async withSessions(count, work) {
      const clients = Array.from({ length: count }, () => {
        sessionCount += 1;
        const client = new pg.Client({
          connectionString: db.connectionString,
          application_name: `reservebench-job-${sessionCount}`,
          options: sessionOptions(connection),
        });
        client.on('error', () => undefined);
        return client;
      });
      try {
        await Promise.all(clients.map((c) => c.connect()));
        const node = nodeIdentity(schema, 0, 1);
        return await work(clients.map((c): SessionContext => ({ db: c, pause: passThrough, node })));
      } finally {
        await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
      }
    },
    async backdate(keys) {
      if (!strategy.backdate) throw new Error(`${strategy.id} has no backdate hook`);
      exercised.add('backdate');
      await strategy.backdate(db.admin, keys);
      phases.step('backdate', { n: keys.length, unit: 'keys' });
    },
    async confirm(session, key) {
      exercised.add('confirm');
      if (!strategy.confirm) throw missing(strategy, 'confirm');
      const moved = await strategy.confirm(session, key);
      phases.step('confirm', { n: moved ? 1 : 0, unit: 'moved' });
      return moved;
    },
    async release(session, key) {
      exercised.add('release');
      if (!strategy.release) throw missing(strategy, 'release');
      const moved = await strategy.release(session, key);
      if (moved) lifecycle.released.add(key);
      phases.step('release', { n: moved ? 1 : 0, unit: 'moved' });
      return moved;
    },
    async disable(session, sku) {
      exercised.add('disable');
      if (!strategy.disable) throw missing(strategy, 'disable');
      const moved = await strategy.disable(session, sku);
      if (moved) lifecycle.disabled.add(sku);
      phases.step(`disable ${sku}`, { n: moved ? 1 : 0, unit: 'moved' });
      return moved;
    },
    async expire(session) {
      exercised.add('expire');
      lifecycle.expireRan = true;
      if (!strategy.expire) throw missing(strategy, 'expire');
      const units = await strategy.expire(session);
      phases.step('expire', { n: units, unit: 'units back' });
      return units;
    },
    remaining: (sku) => strategy.remaining(db.admin, sku),
    status: (key) => strategy.status(db.admin, key),
    async databaseClockPasses(ms) {
      phases.step(`database clock +${ms} ms`);
      const { rows } = await db.admin.query<{ at: Date }>(
        'SELECT clock_timestamp() + make_interval(secs => $1 / 1000.0) AS at',
        [ms],
      );
      const passAt = rows[0]?.at;
      const deadline = performance.now() + timeoutMs;
      // Polling only looks at the clock; the database's own time decides when the hold has expired.
      for (;;) {
        const now = await db.admin.query<{ passed: boolean }>('SELECT clock_timestamp() > $1 AS passed', [
          passAt,
        ]);
        if (now.rows[0]?.passed) return;
        if (performance.now() > deadline) throw new Error(`the database clock did not pass +${ms} ms`);
        await nextLook(5);
      }
    },
    async remainingAtMost(sku, units) {
      const deadline = performance.now() + timeoutMs;
      while ((await strategy.remaining(db.admin, sku)) > units) {
        if (performance.now() > deadline) throw new Error(`remaining(${sku}) never came down to ${units}`);
        await nextLook(5);
      }
    },
    async crashDatabase() {
      if (!db.crashAndRestart) throw new Error('the run has no way to restart this server');
      phases.step('database crash');
      await db.crashAndRestart();
      // The admin connection is a new one: it reads the case's tables again.
      await db.admin.query(`SET search_path TO ${schema}`);
    },
    async reserveOn(session, request) {
      sent.push(request);
      exercised.add('reserve');
      const { requestKey, user, sku } = request;
      const done = phases.send([requestKey]);
      const began = performance.now();
      let result: RequestResult;
      try {
        const checked = checkAnswer(await strategy.reserve(session, request));
        if ('problem' in checked) throw new Error(checked.problem);
        result = { requestKey, user, sku, ...checked.answer, latencyMs: performance.now() - began };
      } catch (error: unknown) {
        const sqlstate = sqlstateOf(error);
        result = {
          requestKey,
          user,
          sku,
          outcome: 'ERROR',
          latencyMs: performance.now() - began,
          error: oneLine(error),
          ...(sqlstate ? { sqlstate } : {}),
        };
      }
      collect([result], done);
      return result;
    },
    async withProxiedSession(work) {
      const direct = new URL(db.connectionString);
      const proxy = await startCommitAckProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
      const viaProxy = new URL(db.connectionString);
      viaProxy.hostname = '127.0.0.1';
      viaProxy.port = String(proxy.port);
      sessionCount += 1;
      const client = new pg.Client({
        connectionString: viaProxy.toString(),
        application_name: `reservebench-proxied-${sessionCount}`,
        options: sessionOptions(connection),
      });
      client.on('error', () => undefined);
      try {
        await client.connect();
        return await work({ db: client, pause: passThrough, node: nodeIdentity(schema, 0, 1) }, proxy);
      } finally {
        await client.end().catch(() => undefined);
        await proxy.close();
      }
    },
    async withServerSetting(name, value, work) {
      await db.admin.query(`ALTER SYSTEM SET ${name} = ${pg.escapeLiteral(value)}`);
      await db.admin.query('SELECT pg_reload_conf()');
      try {
        return await work();
      } finally {
        await db.admin.query(`ALTER SYSTEM RESET ${name}`).catch(() => undefined);
        await db.admin.query('SELECT pg_reload_conf()').catch(() => undefined);
      }
    },
    async available() {
      let sum = 0;
      for (const { sku } of params.stock) sum += await strategy.remaining(db.admin, sku);
      return sum;
    },
    node: (index, count, start) => nodeIdentity(schema, index, count, start),
    crash(operation, crashAt) {
      crashCount += 1;
      phases.step(`kill -9 of ${operation === 'expire' ? 'expire' : 'reserve'} at ${crashAt}`);
      pausePoints.add(`${operation === 'expire' ? 'expire' : 'reserve'}:${crashAt}`);
      if (operation === 'expire') {
        lifecycle.expireRan = true;
        exercised.add('expire');
      } else {
        sent.push(operation.reserve);
        exercised.add('reserve');
      }
      const order = {
        strategyModuleUrl: moduleUrl,
        connectionString: db.connectionString,
        schema,
        ...(isolation ? { isolation } : {}),
        applicationName: `reservebench-crash-${process.pid}-${crashCount}`,
        operation,
        crashAt,
      };
      return runUntilStage(order, db.admin, timeoutMs);
    },
    sent(requests) {
      sent.push(...requests);
      exercised.add('reserve');
      overHttp ??= phases.send(
        requests.map((r) => r.requestKey),
        'reserve over HTTP',
      );
    },
    answered(results) {
      collect(results, overHttp ?? phases.send(results.map((r) => r.requestKey)));
      overHttp = undefined;
    },
    async withService(settings, work) {
      const service = await startReservationService({
        strategy,
        connectionString: db.connectionString,
        schema,
        ...(isolation ? { isolation } : {}),
        node: nodeIdentity(schema, 0, 1),
        ...settings,
      });
      try {
        return await work(service);
      } finally {
        await service.close();
      }
    },
    observe(name, value) {
      observations[name] = value;
    },
  };
  return { ctx, sent, answers, observations, lifecycle, exercised, pausePoints, phases };
}
