/**
 * The service's metrics for `GET /metrics`, in the Prometheus text format (prom-client), on a registry of
 * the service's own: two services in one process (the tests, a scenario) never mix their figures, and
 * nothing lands in prom-client's global registry. Every label takes a bounded set of values (routes are
 * templates such as `/confirm/{request_key}`, never the key).
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AdmissionCounters, Ticket } from '../gate/admission.ts';
import type { ExpiryRun } from './expiry-job.ts';

const SECONDS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export type GateName = 'reservations' | 'lookups';

export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'code'>;
  private readonly latency: Histogram<'route'>;
  private readonly admissionWait: Histogram<'gate' | 'ticket'>;
  private readonly expiryRuns: Counter<'result'>;
  private readonly expiryUnits: Counter;
  private readonly expirySeconds: Histogram;

  constructor(gates: Record<GateName, () => AdmissionCounters>) {
    const registers = [this.registry];
    this.requests = new Counter({
      name: 'reservebench_http_requests_total',
      help: 'HTTP requests answered, by method, route and status code ("aborted": the client went away first)',
      labelNames: ['method', 'route', 'code'],
      registers,
    });
    this.latency = new Histogram({
      name: 'reservebench_http_request_duration_seconds',
      help: 'From the request arriving to its answer being handed to the socket, admission wait included',
      labelNames: ['route'],
      buckets: SECONDS,
      registers,
    });
    this.admissionWait = new Histogram({
      name: 'reservebench_admission_wait_seconds',
      help: 'Time a request spent at its gate before being admitted or turned away, by gate and ticket',
      labelNames: ['gate', 'ticket'],
      buckets: SECONDS,
      registers,
    });
    const depth = (name: string, help: string, read: (c: AdmissionCounters) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['gate'],
        registers,
        collect() {
          for (const [gate, counters] of Object.entries(gates)) this.set({ gate }, read(counters()));
        },
      });
    depth(
      'reservebench_admission_waiting',
      'Requests waiting at the gate now (the queue depth)',
      (c) => c.waiting,
    );
    depth('reservebench_admission_in_flight', 'Requests admitted and not yet done', (c) => c.inFlight);
    depth(
      'reservebench_admission_max_waiting_seen',
      'Most requests ever waiting at once',
      (c) => c.maxWaitingSeen,
    );
    this.expiryRuns = new Counter({
      name: 'reservebench_expiry_runs_total',
      help: 'Runs of the expiry job that ended, by result (ok or error)',
      labelNames: ['result'],
      registers,
    });
    this.expiryUnits = new Counter({
      name: 'reservebench_expiry_units_total',
      help: "Units the expiry job gave back (the strategy's expire return values)",
      registers,
    });
    this.expirySeconds = new Histogram({
      name: 'reservebench_expiry_run_duration_seconds',
      help: 'Duration of one run of the expiry job',
      buckets: SECONDS,
      registers,
    });
    // Present from the start (at 0), so a dashboard tells "never ran" from "not exported".
    this.expiryRuns.inc({ result: 'ok' }, 0);
    this.expiryRuns.inc({ result: 'error' }, 0);
    this.expiryUnits.inc(0);
  }

  answered(method: string, route: string, code: string, seconds: number): void {
    this.requests.inc({ method, route, code });
    this.latency.observe({ route }, seconds);
  }

  admission(gate: GateName, ticket: Ticket, seconds: number): void {
    this.admissionWait.observe({ gate, ticket }, seconds);
  }

  expiryEnded(run: ExpiryRun): void {
    this.expirySeconds.observe(run.seconds);
    if ('units' in run) {
      this.expiryRuns.inc({ result: 'ok' });
      this.expiryUnits.inc(run.units);
    } else {
      this.expiryRuns.inc({ result: 'error' });
    }
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
