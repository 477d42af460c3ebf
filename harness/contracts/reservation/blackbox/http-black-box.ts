/**
 * A black-box target (`run --target`): a reservation service the harness reaches only through its HTTP API
 * (docs/http-api.md), driven with the same scenarios, clients and expectations as a strategy.
 *
 * `strategy` is a Strategy-shaped adapter whose operations are HTTP calls: reserve → POST /reserve,
 * confirm/release → POST /confirm|release/{key}, status → GET /reservations/{key}, remaining → GET
 * /stock/{sku}, setup → POST /admin/reset on every node (or the user's --target-setup command). It
 * declares no pause point and has no expire, backdate or disable, so the coverage logic makes every
 * scenario that needs one "not covered" with the reason; it has no audit (its tables are not the harness's
 * to read). A request goes to node `ctx.node.index mod n` of the base URLs; the driver binds client i to
 * node i mod n. As a BlackBox it says which scenarios it cannot run and why, reads the end state back over
 * HTTP, guards the script context and restarts nodes through --target-restart.
 */
import { setTimeout as nextLook } from 'node:timers/promises';
import type { ClientBase } from 'pg';
import {
  type CheckName,
  type NodeIdentity,
  type ReservationStatus,
  type ReserveRequest,
  type ReserveResult,
  type SessionContext,
  STATUSES,
  type StockLine,
  type Strategy,
} from '../../../../strategies/contract.ts';
import { runHook } from '../../../cluster/hook-command.ts';
import { nodeIdentity } from '../../../driver/node-identity.ts';
import { parseSpec } from '../../../interleaving/spec-parser.ts';
import type { BlackBox } from '../case/black-box.ts';
import { SCENARIO_ACCESS, type Scenario, type ScriptContext } from '../case/scenario.ts';
import { STATUS_OF } from '../http/reservation-service.ts';
import { RESERVATION_VERBS } from '../spec/reservation-verbs.ts';
import type { FinalRead, KeyStatus } from '../verdict/final-read.ts';
import { type ApiAnswer, exchange, shownAnswer } from './api-exchange.ts';
import { type Endpoint, ExchangeLog, type HttpFacts } from './exchange-log.ts';

export interface TargetSettings {
  /** Base URLs, one per node, without a trailing slash. */
  urls: readonly string[];
  /** How each case loads its stock: POST /admin/reset on every node, the user's command, or not at all. */
  setup: { kind: 'reset' } | { kind: 'command'; command: string } | { kind: 'none' };
  /** `--target-restart`: restarts node RESERVEBENCH_NODE; without it, restart scenarios are n/a. */
  restart?: string;
  expect: 'hold' | 'violate';
  caughtBy?: Readonly<Record<string, readonly CheckName[]>>;
  /** The run's --timeout-ms: the longest one exchange, a hook or a node's return may take. */
  timeoutMs: number;
}

/** The case's id, for the setup command's environment. */
const NO_CASE = '';

/** A stand-in where the contract hands a database connection: a black box has none; using it is a bug. */
export const NO_DATABASE_SESSION = {
  query: () => Promise.reject(new Error('a black box has no database session')),
} as unknown as ClientBase;

const passThrough = async () => undefined;

/** Why a black box cannot run what the scenario needs, without a restart hook or with one. */
function scenarioNeeds(scenario: Scenario, restartHook: boolean): string[] {
  const needs: string[] = [];
  if (scenario.kind === 'interleaving') {
    needs.push(
      "it is an interleaving: its steps run on database sessions of the harness's own, judged by the database's lock view (pg_blocking_pids)",
    );
    const spec = parseSpec(scenario.spec, `fixtures/reservation/scenarios/${scenario.id}.ts`, [
      RESERVATION_VERBS,
    ]);
    if (spec.sessions.some((s) => s.steps.some((t) => 'sql' in t.step))) needs.push('it runs SQL steps');
  }
  if (scenario.crashesDatabase) needs.push('it crashes and restarts the database');
  if (scenario.sessionSettings) {
    const settings = Object.entries(scenario.sessionSettings).map(([k, v]) => `${k} = ${v}`);
    needs.push(`it puts database session settings under test (${settings.join(', ')})`);
  }
  for (const access of scenario.access ?? []) {
    if (access === 'node-restart' && restartHook) continue;
    needs.push(SCENARIO_ACCESS[access]);
  }
  return needs;
}

function checkedStatus(value: string | undefined): ReservationStatus | undefined {
  return (STATUSES as readonly string[]).includes(value ?? '') ? (value as ReservationStatus) : undefined;
}

/** A reserve answer as the API defines it (code and outcome agree), or why it is not one. */
function reserveResult(answer: ApiAnswer): ReserveResult | string {
  const { code, fields } = answer;
  const outcome = fields.outcome;
  const expected: Readonly<Record<string, number | undefined>> = STATUS_OF;
  if (outcome === undefined || expected[outcome] === undefined) {
    return `POST /reserve answered ${shownAnswer(answer)}${answer.exhausted ? ' (still 503 after every retry)' : ''}`;
  }
  if (expected[outcome] !== code) {
    return `POST /reserve answered ${code} with outcome=${outcome} (the API answers ${outcome} with ${expected[outcome]})`;
  }
  if (outcome === 'HELD' || outcome === 'REPLAY') {
    const status = checkedStatus(fields.status);
    if (!status) return `POST /reserve answered ${outcome} with status=${fields.status ?? '(none)'}`;
    return { outcome, status };
  }
  return { outcome: outcome as ReserveResult['outcome'] };
}

export class HttpBlackBox implements BlackBox {
  readonly strategy: Strategy;
  private caseId = NO_CASE;

  /** `log`: where every exchange goes (the run's, probes before the first case included). */
  constructor(
    readonly settings: TargetSettings,
    readonly log = new ExchangeLog(),
  ) {
    const { urls, expect, caughtBy } = settings;
    const nodes = urls.length === 1 ? '' : ` (${urls.length} nodes)`;
    this.strategy = {
      id: 'target',
      title: `the HTTP service at ${urls.join(', ')}${nodes}`,
      guarantee: `black box${nodes}: judged from outside, by its answers and its own API read back (status, remaining)`,
      expect,
      ...(caughtBy ? { caughtBy } : {}),
      ...(expect === 'violate'
        ? { notApplicable: `--target-expect violate: caught in ${Object.keys(caughtBy ?? {}).join(', ')}` }
        : {}),
      pausePoints: {},
      setup: (_db, stock) => this.load(stock),
      reserve: (ctx, request) => this.reserve(ctx, request),
      confirm: (ctx, key) => this.end(ctx, 'confirm', key),
      release: (ctx, key) => this.end(ctx, 'release', key),
      status: (_db, key) => this.status(key),
      remaining: (_db, sku) => this.remaining(sku),
    };
  }

  /** The node a session talks to: its node's index among the base URLs. */
  urlOf(node: NodeIdentity | undefined): string {
    const { urls } = this.settings;
    return urls[(node?.index ?? 0) % urls.length] ?? urls[0] ?? '';
  }

  /** The next case begins: its id for the setup command, and HTTP facts counted afresh. */
  beginCase(caseId: string): void {
    this.caseId = caseId;
    this.log.take();
  }

  takeFacts(): HttpFacts {
    return this.log.take();
  }

  notApplicable(scenario: Scenario): string | undefined {
    if (this.settings.setup.kind === 'none') {
      return 'black box: its stock cannot be loaded before the case (no --target-setup, and POST /admin/reset is off); every scenario judges the counts against the stock it loads, and none tolerates stock already there';
    }
    const needs = scenarioNeeds(scenario, this.settings.restart !== undefined);
    return needs.length > 0 ? `black box: ${needs.join('; ')}` : undefined;
  }

  private call(
    endpoint: Endpoint,
    url: string,
    method: 'GET' | 'POST',
    body?: string,
    ctx?: SessionContext,
  ): Promise<ApiAnswer> {
    return exchange(this.log, {
      endpoint,
      url,
      method,
      ...(body !== undefined ? { body } : {}),
      timeoutMs: 2 * this.settings.timeoutMs,
      retry503: true,
      ...(ctx?.retried ? { onRetry: () => ctx.retried?.('503 Retry-After') } : {}),
    });
  }

  async reserve(ctx: SessionContext, request: ReserveRequest): Promise<ReserveResult> {
    const body = JSON.stringify({
      request_key: request.requestKey,
      user: request.user,
      sku: request.sku,
      ttl_ms: request.ttlMs,
    });
    const answer = await this.call('POST /reserve', `${this.urlOf(ctx.node)}/reserve`, 'POST', body, ctx);
    const result = reserveResult(answer);
    if (typeof result === 'string') throw new Error(result);
    return result;
  }

  /** POST /confirm|release/{key}: true when this call moved the hold, false for REPLAY, CONFLICT or NOT_FOUND. */
  async end(ctx: SessionContext, verb: 'confirm' | 'release', key: string): Promise<boolean> {
    const endpoint: Endpoint =
      verb === 'confirm' ? 'POST /confirm/{request_key}' : 'POST /release/{request_key}';
    const url = `${this.urlOf(ctx.node)}/${verb}/${encodeURIComponent(key)}`;
    const answer = await this.call(endpoint, url, 'POST', undefined, ctx);
    const moved = verb === 'confirm' ? 'CONFIRMED' : 'RELEASED';
    const { code, fields } = answer;
    if (code === 200 && fields.outcome === moved) return true;
    if ((code === 200 && fields.outcome === 'REPLAY') || (code === 409 && fields.outcome === 'CONFLICT'))
      return false;
    if (code === 404) return false;
    throw new Error(`${endpoint} answered ${shownAnswer(answer)}`);
  }

  async status(key: string): Promise<KeyStatus> {
    const url = `${this.urlOf(undefined)}/reservations/${encodeURIComponent(key)}`;
    const answer = await this.call('GET /reservations/{request_key}', url, 'GET');
    if (answer.code === 404 && answer.fields.status === 'NOT_FOUND') return 'NOT_FOUND';
    const status = answer.code === 200 ? checkedStatus(answer.fields.status) : undefined;
    if (!status) throw new Error(`GET /reservations/${key} answered ${shownAnswer(answer)}`);
    return status;
  }

  async remaining(sku: string): Promise<number> {
    const url = `${this.urlOf(undefined)}/stock/${encodeURIComponent(sku)}`;
    const answer = await this.call('GET /stock/{sku}', url, 'GET');
    const text = answer.fields.remaining ?? '';
    if (answer.code !== 200 || !/^-?\d+$/.test(text)) {
      throw new Error(`GET /stock/${sku} answered ${shownAnswer(answer)}`);
    }
    return Number(text);
  }

  /** The case's stock, before the case: POST /admin/reset on every node, or the user's command. */
  async load(stock: readonly StockLine[]): Promise<void> {
    const { setup, urls } = this.settings;
    if (setup.kind === 'command') {
      return runHook(
        '--target-setup',
        setup.command,
        {
          RESERVEBENCH_STOCK: JSON.stringify(stock),
          RESERVEBENCH_TARGET_URLS: urls.join(','),
          RESERVEBENCH_CASE: this.caseId,
        },
        this.settings.timeoutMs,
      );
    }
    if (setup.kind === 'none') throw new Error('the target has no way to load its stock');
    // Every node: each forgets what it kept for the old tables (a memory design's counts).
    for (const url of urls) {
      const answer = await this.call(
        'POST /admin/reset',
        `${url}/admin/reset`,
        'POST',
        JSON.stringify({ stock }),
      );
      if (answer.code !== 200) throw new Error(`POST ${url}/admin/reset answered ${shownAnswer(answer)}`);
    }
  }

  async finalRead(keys: Iterable<string>, skus: readonly string[]): Promise<FinalRead> {
    const unique = [...new Set(keys)];
    const statuses = new Map<string, KeyStatus>();
    // A few lookups at a time: the read must not be what overloads the service.
    const lanes = 8;
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(lanes, unique.length) }, async () => {
        while (next < unique.length) {
          const key = unique[next++] as string;
          statuses.set(key, await this.status(key));
        }
      }),
    );
    const remaining = new Map<string, number>();
    for (const sku of skus) remaining.set(sku, await this.remaining(sku));
    // In the order the keys were sent, as the in-process read lists them.
    return { statuses: new Map(unique.map((k) => [k, statuses.get(k) ?? 'NOT_FOUND'])), remaining };
  }

  /** Runs the restart hook for `node`, then waits until that node answers the API again. */
  async restartNode(node: NodeIdentity): Promise<void> {
    const { restart, timeoutMs } = this.settings;
    if (!restart) throw new Error(`node ${node.name} must restart, and no --target-restart was given`);
    const url = this.urlOf(node);
    const index = (node.index % this.settings.urls.length) + 1;
    await runHook(
      '--target-restart',
      restart,
      {
        RESERVEBENCH_NODE: String(index),
        RESERVEBENCH_NODE_URL: url,
        RESERVEBENCH_TARGET_URLS: this.settings.urls.join(','),
      },
      timeoutMs,
    );
    const deadline = performance.now() + timeoutMs;
    const probe = `${url}/reservations/reservebench-restart-probe`;
    for (;;) {
      const answer = await fetch(probe, { signal: AbortSignal.timeout(timeoutMs) }).catch(() => undefined);
      if (answer && (answer.status === 404 || answer.status === 200)) return;
      if (performance.now() > deadline) {
        throw new Error(
          `node ${index} (${url}) did not answer the API within ${timeoutMs} ms of --target-restart`,
        );
      }
      // Only how often readiness is looked at; nothing is ordered by it.
      await nextLook(50);
    }
  }

  /**
   * A script context for the black box: reservations on a restarted node run the restart hook first; what
   * needs the database or an in-process strategy fails with one line naming what the scenario reached for
   * (a scenario that does so without declaring it in `access`).
   */
  scriptContext(ctx: ScriptContext, scenario: Scenario): ScriptContext {
    const unreachable = (what: string) => () => {
      throw new Error(
        `scenario ${scenario.id} reaches for ${what}, which a black box does not have (declare it in the scenario's access)`,
      );
    };
    const incarnations = new Map<string, string>();
    const n = this.settings.urls.length;
    return {
      ...ctx,
      reserve: async (requests, nodeOf, options) => {
        if (options?.rollbackAt) unreachable(`a rollback at ${options.rollbackAt}`)();
        const perClient = options?.perClient ?? 1;
        for (let index = 0; index < Math.ceil(requests.length / perClient); index++) {
          const node = nodeOf?.(index);
          if (!node) continue;
          const before = incarnations.get(node.name);
          incarnations.set(node.name, node.incarnation);
          if (before !== undefined && before !== node.incarnation) await this.restartNode(node);
        }
        return ctx.reserve(requests, nodeOf, options);
      },
      withSessions: (count, work) =>
        work(
          Array.from({ length: count }, (_, i) => ({
            db: NO_DATABASE_SESSION,
            pause: passThrough,
            node: nodeIdentity(scenario.id, i % n, n),
          })),
        ),
      databaseClockPasses: unreachable("the database's clock"),
      crashDatabase: unreachable('a database crash'),
      withProxiedSession: unreachable('a database connection through a proxy'),
      withServerSetting: unreachable("the database server's settings"),
      crash: unreachable('a child process running the strategy'),
      withService: unreachable("the harness's own HTTP service"),
    };
  }
}
