/**
 * The anchor a Markdown heading gets, as GitHub names it (github-slugger): lower case, punctuation dropped,
 * spaces as `-`, a name met again suffixed `-1`, `-2`. report.md links a matrix cell to its case's heading
 * by this name, and report.html gives its headings the same ids, so a link works in both.
 */
export function headingSlug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Slugs for the headings of one document, in its order, as github-slugger gives them: `a`, `a-1`, `a-2`. */
export function slugger(): (text: string) => string {
  const occurrences = new Map<string, number>();
  return (text) => {
    const original = headingSlug(text);
    let result = original;
    while (occurrences.has(result)) {
      const times = (occurrences.get(original) ?? 0) + 1;
      occurrences.set(original, times);
      result = `${original}-${times}`;
    }
    occurrences.set(result, 0);
    return result;
  };
}
