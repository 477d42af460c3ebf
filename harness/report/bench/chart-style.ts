/**
 * How a chart tells its series apart: a colour from a fixed categorical palette, by the series' place in
 * the chart (the report's order of designs), so a design keeps its colour from one render to the next; once
 * the colours are used up they come round again with a dash pattern, so no two series up to
 * PALETTE.length × DASHES.length share both.
 */

/**
 * d3's category10 without its grey (which reads as the axis), then four that stay apart from those and from
 * white: the closest two of the twelve (purple and pink) are still about 28 apart in CIELAB ΔE.
 */
export const PALETTE: readonly string[] = [
  '#1f77b4',
  '#d62728',
  '#2ca02c',
  '#ff7f0e',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#17becf',
  '#bcbd22',
  '#000075',
  '#911eb4',
  '#b15928',
];

/** SVG `stroke-dasharray` values; the first draws a solid line. */
export const DASHES: readonly string[] = ['', '7 4', '2 3', '9 3 2 3'];

export interface SeriesStyle {
  color: string;
  dash: string;
}

export function seriesStyle(index: number): SeriesStyle {
  return {
    color: PALETTE[index % PALETTE.length] ?? '#333',
    dash: DASHES[Math.floor(index / PALETTE.length) % DASHES.length] ?? '',
  };
}

/** The attribute that draws a series' line in its dash pattern; none for a solid line. */
export const dashAttribute = (style: SeriesStyle) => (style.dash ? ` stroke-dasharray="${style.dash}"` : '');
