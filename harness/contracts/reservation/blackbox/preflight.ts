/**
 * Before any case of `run --target`: each node must answer the reservation API (an unknown key's lookup is
 * a 404 `status=NOT_FOUND`), or the run stops with one line (exit 2). Which way each case loads its stock
 * is settled here too: the user's `--target-setup` command, else POST /admin/reset when every node has it
 * on (a body that is no stock list is a 400 there, and changes nothing), else none.
 */
import type { TargetGiven } from '../../../contract/contract-target.ts';
import { Errors, oneLine } from '../../../errors.ts';
import { exchange, NoAnswer, shownAnswer } from './api-exchange.ts';
import type { ExchangeLog } from './exchange-log.ts';
import type { TargetSettings } from './http-black-box.ts';

/** How long a probe may take before the node counts as unreachable. */
const PROBE_MS = 5_000;

/**
 * Asks every node whether it speaks the API, then how stock can be loaded; one line and exit 2 when a node
 * cannot be reached or does not answer as the API says.
 */
export async function preflightTarget(given: TargetGiven, log: ExchangeLog): Promise<TargetSettings> {
  const { setupCommand, caughtBy, ...given_ } = given;
  // The command line checked each of them against the contract's target checks (CHECKS).
  const rest = { ...given_, ...(caughtBy ? { caughtBy: caughtBy as TargetSettings['caughtBy'] } : {}) };
  const ask = async (
    base: string,
    endpoint: 'GET /reservations/{request_key}' | 'POST /admin/reset',
    path: string,
    body?: string,
  ) => {
    try {
      return await exchange(log, {
        endpoint,
        url: `${base}${path}`,
        method: body === undefined ? 'GET' : 'POST',
        ...(body !== undefined ? { body } : {}),
        timeoutMs: PROBE_MS,
        retry503: false,
      });
    } catch (error: unknown) {
      throw Errors.badInput(
        `--target ${base}: unreachable: ${error instanceof NoAnswer ? error.why : oneLine(error)}`,
      );
    }
  };
  for (const url of given.urls) {
    const answer = await ask(
      url,
      'GET /reservations/{request_key}',
      '/reservations/reservebench-probe-unknown-key',
    );
    const speaks =
      (answer.code === 404 && answer.fields.status === 'NOT_FOUND') ||
      (answer.code === 503 && answer.fields.outcome !== undefined);
    if (!speaks) {
      throw Errors.badInput(
        `--target ${url} does not speak the reservation API (docs/http-api.md): GET /reservations/{key} of an unknown key answered ${shownAnswer(answer)}, not 404 status=NOT_FOUND`,
      );
    }
  }
  if (setupCommand !== undefined) return { ...rest, setup: { kind: 'command', command: setupCommand } };
  let resets = 0;
  for (const url of given.urls) {
    // Not a stock list: a node with the reset on refuses it (400) and changes nothing.
    const answer = await ask(url, 'POST /admin/reset', '/admin/reset', '{}');
    if (answer.code === 400) resets += 1;
    else if (![403, 404, 405].includes(answer.code)) {
      throw Errors.badInput(
        `--target ${url}: POST /admin/reset with a body that is no stock list answered ${shownAnswer(answer)}; the API says 400 (reset on) or 403/404 (off)`,
      );
    }
  }
  return { ...rest, setup: resets === given.urls.length ? { kind: 'reset' } : { kind: 'none' } };
}
