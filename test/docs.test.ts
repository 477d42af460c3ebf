/**
 * The documentation a user reads lives in the repository and stays true to the code: the generated
 * reference matches what the harness runs, README.md counts the default run's designs, controls and scenarios
 * as the registry has them, README.md links every page of docs/, and no link in README.md or
 * docs/ leaves the repository, points at a file that is not there, or at a heading its page does not have.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { scenariosOfDefaultRun } from '../harness/contract/contract.ts';
import { ORDER } from '../harness/contracts/order/contract.ts';
import { PAYMENT } from '../harness/contracts/payment/contract.ts';
import { RESERVATION } from '../harness/contracts/reservation/contract.ts';
import type { AnyContract } from '../harness/suite/suite.ts';
import { REFERENCE_PATH, renderReference } from '../scripts/reference-doc.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

function markdownFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/** Every `[text](target)` and `<a href="target">` in a Markdown file. */
function linkTargets(markdown: string): string[] {
  return [
    ...[...markdown.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? ''),
    ...[...markdown.matchAll(/href="([^"]+)"/g)].map((m) => m[1] ?? ''),
  ].filter((t) => t !== '');
}

/** The anchors GitHub gives a page's headings: lower case, punctuation but - and _ dropped, spaces to -. */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let inCode = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) inCode = !inCode;
    const heading = inCode ? undefined : /^#{1,6} (.+)$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const anchor = heading
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const times = seen.get(anchor) ?? 0;
    seen.set(anchor, times + 1);
    anchors.add(times === 0 ? anchor : `${anchor}-${times}`);
  }
  return anchors;
}

/** Links that leave the repository, point at nothing, or name the design notes outside it. */
function badLinks(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const problems = /\.\.\/shared\b|DESIGN\.md/.test(text) ? ['mentions ../shared or DESIGN.md'] : [];
  for (const target of linkTargets(text)) {
    if (/^[a-z]+:/i.test(target)) {
      problems.push(`${target}: a link outside the repository`);
      continue;
    }
    const [path = '', fragment] = target.split('#');
    const resolved = path === '' ? file : resolve(dirname(file), path);
    if (relative(root, resolved).startsWith('..')) problems.push(`${target}: leaves the repository`);
    else if (!existsSync(resolved)) problems.push(`${target}: no such file`);
    else if (
      fragment &&
      resolved.endsWith('.md') &&
      !headingAnchors(readFileSync(resolved, 'utf8')).has(fragment)
    )
      problems.push(`${target}: no such heading`);
  }
  return problems;
}

/** A contract's built-in designs that should hold, its controls, and the scenarios a default run drives. */
async function defaultRunCounts(contract: AnyContract): Promise<number[]> {
  const { designs } = contract;
  const refs: unknown[] = await Promise.all(designs.builtInIds.map((id: string) => designs.load(id)));
  const expects = refs.map((ref) => designs.info(ref).design.expect);
  const scenarios = scenariosOfDefaultRun(contract.scenarios, false);
  return [
    expects.filter((e) => e === 'hold').length,
    expects.filter((e) => e === 'violate').length,
    scenarios.length,
  ];
}

describe('documentation in the repository', () => {
  it("README.md counts the default run's designs, controls and scenarios as the registry has them", async () => {
    const text = readFileSync(join(root, 'README.md'), 'utf8').replace(/\s+/g, ' ');
    const said =
      /`npm start` runs (\d+) designs and (\d+) negative controls over (\d+) scenarios, the payment contract's (\d+) designs \([^)]*\) and (\d+) controls over (\d+) scenarios, the order contract's (\d+) designs and (\d+) controls over (\d+) scenarios/.exec(
        text,
      );
    expect(said, 'the sentence on what `npm start` runs').not.toBeNull();
    const counts = (await Promise.all([RESERVATION, PAYMENT, ORDER].map(defaultRunCounts))).flat();
    expect(said?.slice(1).map(Number)).toEqual(counts);
  });

  it('docs/reference.md is what `npm run docs` generates today', async () => {
    expect(readFileSync(REFERENCE_PATH, 'utf8')).toBe(await renderReference());
  });

  it('README.md and docs/ link only to files and headings inside the repository that exist', () => {
    const files = [join(root, 'README.md'), ...markdownFiles(join(root, 'docs'))];
    const problems = files.flatMap((file) => badLinks(file).map((p) => `${relative(root, file)}: ${p}`));
    expect(problems).toEqual([]);
  });

  it('README.md links every page of docs/', () => {
    const readme = join(root, 'README.md');
    const linked = new Set(
      linkTargets(readFileSync(readme, 'utf8')).map((t) => resolve(root, t.split('#')[0] ?? '')),
    );
    const pages = readdirSync(join(root, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => join(root, 'docs', name));
    expect(pages.filter((page) => !linked.has(page)).map((page) => relative(root, page))).toEqual([]);
  });

  it('the link check fails on a link out of the repository, a missing file and a missing heading', () => {
    const probe = join(root, 'test', 'fixtures', 'docs', 'bad-links.md');
    expect(badLinks(probe)).toEqual([
      'mentions ../shared or DESIGN.md',
      '../../../../shared/DESIGN.md: leaves the repository',
      'https://example.com/x: a link outside the repository',
      'missing.md: no such file',
      '#nowhere: no such heading',
      '../../../README.md#nowhere: no such heading',
    ]);
  });
});
