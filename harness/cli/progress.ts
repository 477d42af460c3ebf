/**
 * A progress bar on stderr while a long command runs (bench trials, explored programs); silent when stderr
 * is not a terminal (CI, pipes).
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
