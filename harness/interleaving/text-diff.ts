/**
 * A unified diff by lines, for `spec --expected`: the longest common subsequence of the lines that differ
 * (after the common head and tail), shown with three lines of context around each change.
 */

/** Above this many line pairs the differing middle is shown as removed and added as a whole. */
const MAX_CELLS = 20_000_000;
const CONTEXT = 3;

type Edit = { op: ' ' | '-' | '+'; line: string };

function edits(a: readonly string[], b: readonly string[]): Edit[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head += 1;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  )
    tail += 1;
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  const middle: Edit[] = [];
  if (x.length * y.length > MAX_CELLS) {
    middle.push(
      ...x.map((line) => ({ op: '-' as const, line })),
      ...y.map((line) => ({ op: '+' as const, line })),
    );
  } else {
    // lcs[i * (m + 1) + j]: length of the longest common subsequence of x[i..] and y[j..].
    const m = y.length;
    const lcs = new Uint32Array((x.length + 1) * (m + 1));
    for (let i = x.length - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        lcs[i * (m + 1) + j] =
          x[i] === y[j]
            ? (lcs[(i + 1) * (m + 1) + j + 1] ?? 0) + 1
            : Math.max(lcs[(i + 1) * (m + 1) + j] ?? 0, lcs[i * (m + 1) + j + 1] ?? 0);
      }
    }
    let i = 0;
    let j = 0;
    while (i < x.length || j < m) {
      if (i < x.length && j < m && x[i] === y[j]) {
        middle.push({ op: ' ', line: x[i] ?? '' });
        i += 1;
        j += 1;
      } else if (
        i < x.length &&
        (j === m || (lcs[(i + 1) * (m + 1) + j] ?? 0) >= (lcs[i * (m + 1) + j + 1] ?? 0))
      ) {
        middle.push({ op: '-', line: x[i] ?? '' });
        i += 1;
      } else {
        middle.push({ op: '+', line: y[j] ?? '' });
        j += 1;
      }
    }
  }
  const same = (line: string): Edit => ({ op: ' ', line });
  return [...a.slice(0, head).map(same), ...middle, ...a.slice(a.length - tail).map(same)];
}

/** The diff from `expected` to `actual` as lines, headed by the two labels; empty when they are equal. */
export function unifiedDiff(
  expected: string,
  actual: string,
  labels: { expected: string; actual: string },
): string[] {
  if (expected === actual) return [];
  const script = edits(expected.split('\n'), actual.split('\n'));
  const out = [`--- ${labels.expected}`, `+++ ${labels.actual}`];
  let k = 0;
  while (k < script.length) {
    if (script[k]?.op === ' ') {
      k += 1;
      continue;
    }
    // One hunk: from CONTEXT lines before this change to CONTEXT lines after the last change that is at
    // most 2 × CONTEXT unchanged lines from the one before it.
    const from = Math.max(0, k - CONTEXT);
    let to = k;
    let unchanged = 0;
    for (let e = k; e < script.length && unchanged <= 2 * CONTEXT; e++) {
      if (script[e]?.op === ' ') unchanged += 1;
      else {
        unchanged = 0;
        to = e;
      }
    }
    const end = Math.min(script.length, to + CONTEXT + 1);
    const hunk = script.slice(from, end);
    const before = script.slice(0, from);
    const oldStart = before.filter((e) => e.op !== '+').length + 1;
    const newStart = before.filter((e) => e.op !== '-').length + 1;
    const oldCount = hunk.filter((e) => e.op !== '+').length;
    const newCount = hunk.filter((e) => e.op !== '-').length;
    out.push(`@@ -${oldStart},${oldCount} +${newStart},${newCount} @@`, ...hunk.map((e) => e.op + e.line));
    k = end;
  }
  return out;
}
