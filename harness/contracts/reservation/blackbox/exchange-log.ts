/**
 * HTTP-level facts of a black-box target (`run --target`): every exchange the harness had with the service,
 * per endpoint — how often each status code came back, how many 503s it retried with the same key, and the
 * latency of each exchange from an HDR histogram (harness/driver/latency.ts). Recorded where the exchange
 * happens, summed per case and over the run.
 */
import { type LatencyPercentiles, summarizeLatency } from '../../../driver/latency.ts';

/** The API's endpoints as route templates (docs/http-api.md), in the order reports list them. */
export const ENDPOINTS = [
  'POST /reserve',
  'GET /reservations/{request_key}',
  'POST /confirm/{request_key}',
  'POST /release/{request_key}',
  'GET /stock/{sku}',
  'POST /admin/reset',
] as const;
export type Endpoint = (typeof ENDPOINTS)[number];

/** A status code as text, or `network` for an exchange that got no HTTP answer (refused, reset, timed out). */
export type CodeKey = string;

export interface EndpointFacts {
  endpoint: Endpoint;
  /** Exchanges (every attempt, retries included). */
  requests: number;
  /** Exchanges by status code (`201`, `409`, `503`, …; `network`: no HTTP answer). */
  codes: Record<CodeKey, number>;
  /** 503 answers with Retry-After that the harness sent again with the same key. */
  retried503: number;
  /** Per exchange, in ms. */
  latency: LatencyPercentiles;
}

export interface HttpFacts {
  endpoints: EndpointFacts[];
  /** Σ retried503 over the endpoints. */
  retried503: number;
}

export interface Exchange {
  endpoint: Endpoint;
  code: CodeKey;
  ms: number;
  /** This 503 was answered by sending the same request again. */
  retried?: boolean;
}

/** Collects exchanges; `take()` summarises what came since the last take and starts afresh. */
export class ExchangeLog {
  private exchanges: Exchange[] = [];
  private readonly all: Exchange[] = [];

  record(exchange: Exchange): void {
    this.exchanges.push(exchange);
    this.all.push(exchange);
  }

  /** What came since the last take (one case), then nothing. */
  take(): HttpFacts {
    const facts = summarize(this.exchanges);
    this.exchanges = [];
    return facts;
  }

  /** Everything recorded over the run. */
  total(): HttpFacts {
    return summarize(this.all);
  }
}

export function summarize(exchanges: readonly Exchange[]): HttpFacts {
  const endpoints = ENDPOINTS.flatMap((endpoint): EndpointFacts[] => {
    const mine = exchanges.filter((x) => x.endpoint === endpoint);
    if (mine.length === 0) return [];
    const codes: Record<CodeKey, number> = {};
    for (const code of [...new Set(mine.map((x) => x.code))].sort()) {
      codes[code] = mine.filter((x) => x.code === code).length;
    }
    return [
      {
        endpoint,
        requests: mine.length,
        codes,
        retried503: mine.filter((x) => x.retried).length,
        latency: summarizeLatency(mine.map((x) => x.ms)),
      },
    ];
  });
  return { endpoints, retried503: endpoints.reduce((n, e) => n + e.retried503, 0) };
}

/** `201 ×40, 409 ×110` */
export function formatCodes(codes: Record<CodeKey, number>): string {
  return (
    Object.entries(codes)
      .map(([code, n]) => `${code} ×${n}`)
      .join(', ') || '-'
  );
}
