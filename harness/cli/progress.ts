/**
 * Progress on stderr while a long command runs: a bar (bench trials, explored programs, a run's cases with
 * the failures so far) on a terminal only, and the lines that need a reader's attention above it. Where
 * stderr is no terminal (CI, pipes) there is no bar, and the lines are written as they come.
 */
import cliProgress from 'cli-progress';

export interface Progress {
  tick(label: string): void;
  stop(): void;
}

export function progressBar(total: number, command = 'bench', unit = 'trials'): Progress | undefined {
  if (!process.stderr.isTTY) return undefined;
  const bar = new cliProgress.SingleBar(
    {
      format: `${command} [{bar}] {value}/{total} ${unit} | {label}`,
      stream: process.stderr,
      hideCursor: true,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0, { label: 'starting' });
  return {
    tick: (label) => bar.increment(1, { label }),
    stop: () => bar.stop(),
  };
}

/** A run's cases: done of planned, how many failed, and lines printed above the bar. */
export interface CaseProgress {
  /** More cases planned (a run on several servers plans each server's as it starts it). */
  plan(cases: number): void;
  /** One case done: its id, whether it failed the run, and its line when it needs one. */
  done(id: string, failed: boolean, line: string | undefined): void;
  stop(): void;
}

export function caseProgress(): CaseProgress {
  const write = (line: string) => process.stderr.write(`${line}\n`);
  if (!process.stderr.isTTY)
    return {
      plan: () => {},
      done: (_id, _failed, line) => line !== undefined && write(line),
      stop: () => {},
    };
  const bars = new cliProgress.MultiBar(
    {
      format: 'run [{bar}] {value}/{total} cases | {failed} failed | {label}',
      stream: process.stderr,
      hideCursor: true,
      clearOnComplete: true,
    },
    cliProgress.Presets.shades_classic,
  );
  const bar = bars.create(0, 0, { failed: 0, label: 'starting' });
  let failed = 0;
  return {
    plan: (cases) => bar.setTotal(bar.getTotal() + cases),
    done: (id, fails, line) => {
      if (fails) failed += 1;
      if (line !== undefined) bars.log(`${line}\n`);
      bar.increment(1, { failed, label: id });
    },
    stop: () => bars.stop(),
  };
}
