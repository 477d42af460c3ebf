/**
 * A step sent on its session, the tester's active step until it is reported completed. Its record is made
 * here when the step is sent and filled in here when its outcome arrives: what a record says about a
 * step's span, from invocation to completion, is said in this one place.
 */
import { harnessNow } from './harness-clock.ts';
import { type Blocker, callsTheDesign, type Step, type StepRecord } from './permutation.ts';
import type { Session } from './session.ts';
import { StepActivity } from './step-activity.ts';
import type { Outcome } from './step-outcome.ts';

export class SentStep {
  readonly record: StepRecord;
  /** Settles once `outcome` is set; never rejects. */
  readonly done: Promise<void>;
  outcome?: Outcome;
  /** Set with `outcome` when the step's backend was not seen idle after the error it reported. */
  failure?: Error;
  /** For each `notices` blocker: the notice count its session must reach. */
  readonly noticeTargets = new Map<Blocker, number>();
  /** What its backend has been seen doing since it was sent. */
  readonly activity: StepActivity;

  constructor(
    readonly step: Step,
    readonly session: Session,
    requestKey: string | undefined,
    /** Sends the step; called once the record has its `sentAt`. */
    start: () => Promise<Outcome>,
    /** Resolves once the step's backend is no longer running a statement; rejects at its deadline. */
    untilIdle: (sent: SentStep) => Promise<void>,
  ) {
    this.activity = new StepActivity(session.retriesReported);
    this.record = {
      step: step.name,
      session: session.name,
      ...(requestKey ? { requestKey } : {}),
      blocked: false,
      retrying: false,
      sentAt: harnessNow(),
      result: { status: 'ok' },
    };
    this.done = start().then(async (outcome) => {
      this.record.completedAt = harnessNow();
      if (outcome.result.status === 'error') {
        await untilIdle(this).catch((error: unknown) => {
          this.failure = error instanceof Error ? error : new Error(String(error));
        });
      }
      this.record.result = outcome.result;
      this.outcome = outcome;
    });
  }
  /**
   * An operation of the design that is retrying (see StepActivity). A SQL step is the isolation tester's: it
   * waits only on locks, however many transactions it runs.
   */
  get retrying(): boolean {
    return callsTheDesign(this.step) && this.activity.retrying(this.session.retriesReported);
  }
}
