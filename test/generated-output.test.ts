/**
 * Running the suite never dirties the working tree: everything `run` and `bench` write by default lands
 * in git-ignored reports/, and the reviewed examples (reports/examples/) stay tracked, changed only by
 * `npm run examples`.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { reportFolder } from '../harness/report/report.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

function ignored(path: string): boolean {
  try {
    execFileSync('git', ['check-ignore', '-q', '--no-index', path], { cwd: root });
    return true;
  } catch {
    return false;
  }
}

describe('generated output and git', () => {
  it('what run and bench write by default is ignored; the reviewed examples are not', () => {
    const stamp = new Date().toISOString();
    const written = [
      `${reportFolder('reports', stamp)}/report.json`,
      `${reportFolder('reports', stamp, 'bench')}/throughput.svg`,
      'reports/latest/report.md',
      'reports/latest/report.html',
      'reports/latest-bench/bench.csv',
    ];
    expect(written.filter((path) => !ignored(path))).toEqual([]);
    // An ignore rule does not cover a file git already tracks: under reports/ only its README and the
    // reviewed examples may be.
    const trackedReports = execFileSync('git', ['ls-files', 'reports'], { cwd: root, encoding: 'utf8' });
    expect(
      trackedReports
        .split('\n')
        .filter((p) => p && p !== 'reports/README.md' && !p.startsWith('reports/examples/')),
    ).toEqual([]);
    const examples = ['reports/examples/run/report.json', 'reports/examples/bench/report.json'];
    expect(examples.filter(ignored)).toEqual([]);
    const tracked = execFileSync('git', ['ls-files', 'reports/examples'], { cwd: root, encoding: 'utf8' });
    for (const example of examples) expect(tracked).toContain(example);
  });
});
