/**
 * How wide a line of chart text draws, without a browser to measure it: the advance widths of DejaVu Sans
 * (Verdana's metrics, the widest of the faces a reader's `sans-serif` resolves to), so the estimate is an
 * upper bound and a legend sized by it never cuts a name. A character outside printable ASCII counts a full
 * em, the width of the widest glyphs (CJK, `—`).
 */

/** Advance widths in em of the characters from ' ' (U+0020) to '~' (U+007E), from DejaVu Sans' hmtx table. */
const ASCII_EM = [
  0.318, 0.401, 0.46, 0.838, 0.636, 0.95, 0.78, 0.275, 0.39, 0.39, 0.5, 0.838, 0.318, 0.361, 0.318, 0.337,
  0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.636, 0.337, 0.337, 0.838, 0.838, 0.838,
  0.531, 1.0, 0.684, 0.686, 0.698, 0.77, 0.632, 0.575, 0.775, 0.752, 0.295, 0.295, 0.656, 0.557, 0.863, 0.748,
  0.787, 0.603, 0.787, 0.695, 0.635, 0.611, 0.732, 0.684, 0.989, 0.685, 0.611, 0.685, 0.39, 0.337, 0.39,
  0.838, 0.5, 0.5, 0.613, 0.635, 0.55, 0.635, 0.615, 0.352, 0.635, 0.634, 0.278, 0.278, 0.579, 0.278, 0.974,
  0.634, 0.612, 0.635, 0.635, 0.411, 0.521, 0.392, 0.634, 0.592, 0.818, 0.592, 0.592, 0.525, 0.636, 0.337,
  0.636, 0.838,
];

const emOf = (char: string) => ASCII_EM[(char.codePointAt(0) ?? 0) - 0x20] ?? 1;

/** The width in px of `text` drawn at `fontSize` px. */
export function textWidth(text: string, fontSize: number): number {
  let em = 0;
  for (const char of text) em += emOf(char);
  return em * fontSize;
}

/** Pieces of `text` that a line may break after: a word with the spaces or punctuation that end it. */
const BREAKS = /[^\s\-/_.:,]*[\s\-/_.:,]*/g;

/**
 * `text` in lines no wider than `maxWidth`, broken after spaces and `-/_.:,` where it can be, inside a piece
 * that alone is too wide where it cannot: every character is kept, in order, but the spaces at a break.
 */
export function wrapText(text: string, maxWidth: number, fontSize: number): string[] {
  const lines: string[] = [];
  let current = '';
  const fits = (candidate: string) => textWidth(candidate.trimEnd(), fontSize) <= maxWidth;
  for (const piece of text.match(BREAKS) ?? []) {
    if (fits(current + piece)) {
      current += piece;
      continue;
    }
    if (current) lines.push(current.trimEnd());
    current = '';
    for (const char of piece) {
      if (current && !fits(current + char)) {
        lines.push(current.trimEnd());
        current = '';
      }
      current += char;
    }
  }
  if (current || lines.length === 0) lines.push(current.trimEnd());
  return lines;
}
