/**
 * One member of an embedded cluster as a process: its data directory (a state file names it from the
 * moment it exists, for `reservebench clean` after a kill -9), its postmaster (in a session of its own, as
 * the lone embedded server's), started and stopped as the cluster's faults say. Every member alive is in
 * one process-wide set that a single exit hook stops: Ctrl-C (a fast shutdown, waited for) and an exit on
 * an uncaught error (an immediate-shutdown signal on the way out) leave no member running and no directory
 * behind, however many clusters the run made.
 */
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import exitHook from 'async-exit-hook';
import { running, startPostmaster, stopPostmaster } from '../database/embedded-server.ts';
import { postmasterPid, removeRunState, writeRunState } from '../database/run-state.ts';
import { wasInterrupted } from '../interrupted.ts';

export class MemberProcess {
  private postmaster: ChildProcess | undefined;
  private readonly stateFile: string;
  /** Kept for inspection (a failed case): its directory stays, its state file says so. */
  private kept = false;

  constructor(
    readonly dataDir: string,
    private readonly binary: string,
  ) {
    this.stateFile = writeRunState({ pid: process.pid, startedAt: new Date().toISOString(), dataDir });
    alive.add(this);
    hookExitOnce();
  }

  get isRunning(): boolean {
    return running(this.postmaster);
  }

  /** Starts the postmaster on `port` with `flags`; resolves once it accepts connections. */
  async start(port: number, flags: readonly string[] = []): Promise<void> {
    await startPostmaster(
      this.binary,
      { dataDir: this.dataDir, port, socketDir: undefined, extraFlags: flags },
      (child) => {
        this.postmaster = child;
      },
    );
  }

  /**
   * Stops the postmaster and waits for its process to end: `SIGINT` a fast shutdown (a primary first
   * sends its standbys every WAL record, its shutdown checkpoint included), `SIGQUIT` an immediate one
   * (no checkpoint: what is only in memory is gone, as in a crash).
   */
  async stop(signal: 'SIGINT' | 'SIGQUIT' = 'SIGINT'): Promise<void> {
    if (this.postmaster) await stopPostmaster(this.postmaster, signal);
  }

  /** Stopped for good: its directory goes, unless `keep` (its state file then names it as kept). */
  async remove({ keep }: { keep: boolean }): Promise<void> {
    // Kept data is shut down cleanly; data about to be deleted needs no shutdown checkpoint.
    await this.stop(keep ? 'SIGINT' : 'SIGQUIT');
    alive.delete(this);
    if (keep && !wasInterrupted()) {
      this.kept = true;
      writeRunState(
        { pid: process.pid, startedAt: new Date().toISOString(), dataDir: this.dataDir, kept: true },
        this.stateFile,
      );
      return;
    }
    this.removeFiles();
  }

  /** On the way out of the process, nothing asynchronous runs: an immediate-shutdown signal, then its files. */
  exitNow(): void {
    const pid = running(this.postmaster) ? this.postmaster?.pid : postmasterPid(this.dataDir);
    try {
      if (pid) process.kill(pid, 'SIGQUIT');
    } catch {
      // gone in the meantime
    }
    if (!this.kept) this.removeFiles();
  }

  removeFiles(): void {
    rmSync(this.dataDir, { recursive: true, force: true });
    removeRunState(this.stateFile);
  }
}

const alive = new Set<MemberProcess>();
let hooked = false;

/** One hook for every member of every cluster: registered once, it stops whichever are alive then. */
function hookExitOnce(): void {
  if (hooked) return;
  hooked = true;
  exitHook((done) => {
    if (!done) return;
    const members = [...alive];
    alive.clear();
    void Promise.allSettled(members.map((m) => m.stop().then(() => m.removeFiles()))).finally(done);
  });
  process.once('exit', () => {
    for (const member of alive) member.exitNow();
  });
}
