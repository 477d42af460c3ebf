/** The per-process gate (admission.ts) as a Gate: what every instance has on its own. */
import { Admission, type AdmissionSettings } from './admission.ts';
import type { Gate, GateCounters, Pass } from './gate.ts';

export class LocalGate implements Gate {
  readonly kind = 'local' as const;
  private readonly admission: Admission;

  constructor(readonly settings: AdmissionSettings) {
    this.admission = new Admission(settings);
  }

  async enter(): Promise<Pass> {
    const ticket = await this.admission.enter();
    const leave = async () => this.admission.exit();
    return { ticket, leave: ticket.startsWith('REJECTED_') ? async () => undefined : leave };
  }

  counters(): GateCounters {
    return {
      ...this.admission.counters(),
      kind: 'local',
      failureMode: 'closed',
      storeFailures: 0,
      failedOpen: 0,
      leasesLost: 0,
    };
  }

  async close(): Promise<void> {}
}
