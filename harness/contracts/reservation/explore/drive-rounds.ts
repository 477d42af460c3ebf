/**
 * Driving a batch of the exhaustive scope: its permutation's steps round by round. Within a round each
 * session sends its steps in their order, one after another, and the sessions run side by side; the next
 * round starts when every step of this one has completed. Nothing waits for a lock the engine would have
 * to watch: the programs never stop at a pause point (every transaction ends within its step) and never
 * share a row. The steps are the engine's own (call-steps.ts, the database-clock WAIT, RESTART), and
 * are recorded as an interleaving's are, so the case is judged as any program's. The sessions commit
 * without waiting for the WAL flush (synchronous_commit off): no program crashes the server, so what a
 * commit made visible is the same either way, and the wait would only cost time.
 */
import pg from 'pg';
import { requestKeyOf, startCallStep } from '../../../interleaving/call-steps.ts';
import { databaseClockPasses } from '../../../interleaving/clock-step.ts';
import { harnessNow } from '../../../interleaving/harness-clock.ts';
import { Nodes } from '../../../interleaving/nodes.ts';
import {
  isContractStep,
  type Permutation,
  type Step,
  type StepRecord,
} from '../../../interleaving/permutation.ts';
import { Session } from '../../../interleaving/session.ts';
import type { StepEnvironment } from '../../../interleaving/spec-verbs.ts';
import { type Outcome, ok } from '../../../interleaving/step-outcome.ts';
import type { CaseOnSchema } from '../case/case-spec.ts';
import { recordedSteps } from '../case/drive-interleaving.ts';
import type { Driven } from '../case/driven.ts';
import { RESERVATION_VERBS } from '../spec/reservation-verbs.ts';

function start(session: Session, step: Step, env: StepEnvironment): Promise<Outcome> {
  if ('until' in step && step.until)
    throw new Error(`step ${step.name} stops at a pause point: not a batch step`);
  if (isContractStep(step) || 'resume' in step) return startCallStep(session, step, env);
  if ('waitMs' in step) return databaseClockPasses(session, env.clockWait(step.waitMs), env);
  if ('restart' in step) {
    env.nodes.restart(step.restart);
    return Promise.resolve(ok({ status: 'ok' }));
  }
  throw new Error(`step ${step.name} is SQL: not a batch step`);
}

async function runStep(session: Session, step: Step, env: StepEnvironment) {
  const requestKey = requestKeyOf(session, step);
  const record: StepRecord = {
    step: step.name,
    session: session.name,
    ...(requestKey ? { requestKey } : {}),
    blocked: false,
    retrying: false,
    sentAt: harnessNow(),
    result: { status: 'ok' },
  };
  const outcome = await start(session, step, env);
  record.completedAt = harnessNow();
  record.result = outcome.result;
  return record;
}

/** `rounds`: the index of each round's first step in the permutation, ascending, the first 0. */
export async function driveInRounds(
  on: CaseOnSchema,
  permutation: Permutation,
  rounds: readonly number[],
): Promise<Driven> {
  const { spec, settings, db, schema } = on;
  const connection = {
    connectionString: db.connectionString,
    schema,
    ...(spec.isolation ? { isolation: spec.isolation } : {}),
  };
  const sessions = new Map<string, Session>();
  // The control connection only serves RESUME KILL, which a batch has none of: never connected.
  const control = new pg.Client({ connectionString: db.connectionString });
  const env: StepEnvironment = {
    contract: { verbs: RESERVATION_VERBS, design: spec.ref.strategy },
    nodes: new Nodes(schema),
    control,
    steps: new Map(permutation.steps.map((s) => [s.name, s])),
    clockWait: (ms) => on.history.distinguishableWait(ms),
    pollMs: 5,
    timeoutMs: settings.timeoutMs,
  };
  const records: StepRecord[] = [];
  try {
    await Promise.all(
      permutation.sessions.map(async (name) => {
        const session = await Session.open(name, connection, () => undefined);
        sessions.set(name, session);
        // No program crashes the server, so a commit's WAL flush is never observed: only waited for.
        await session.client.query('SET synchronous_commit = off');
      }),
    );
    const ends = [...rounds.slice(1), permutation.steps.length];
    for (const [r, from] of rounds.entries()) {
      const round = permutation.steps.slice(from, ends[r]);
      // A restart waits for the round's other operations: a node restarts with no request in flight, as a
      // process does (its rebuild must not miss another program's sale still in its transaction).
      const steps = round.filter((s) => !('restart' in s));
      const restarts = round.filter((s) => 'restart' in s);
      const bySession = [...new Set(steps.map((s) => s.session))].map((name) =>
        steps.filter((s) => s.session === name),
      );
      const ran = await Promise.all(
        bySession.map(async (own) => {
          const out: StepRecord[] = [];
          for (const step of own) out.push(await runStep(sessions.get(step.session) as Session, step, env));
          return out;
        }),
      );
      records.push(...ran.flat().sort((a, b) => a.sentAt - b.sentAt));
      for (const step of restarts)
        records.push(await runStep(sessions.get(step.session) as Session, step, env));
    }
  } finally {
    await Promise.all([...sessions.values()].map((s) => s.client.end().catch(() => undefined)));
  }
  return recordedSteps(on, permutation, records, env.nodes);
}
