/**
 * A chart's legend: one entry a series, then the notes (error bars, hollow markers), in a column as wide as
 * its longest label needs (text-width.ts' upper bound), up to MAX_LABEL_WIDTH; a label wider than that
 * wraps onto further lines of its entry. Either way no name is cut, and the chart widens to hold the column.
 */
import { textWidth, wrapText } from './text-width.ts';
import { xmlText } from './xml-text.ts';

export interface LegendItem {
  label: string;
  /** The entry's sample, centred on (x, y). */
  icon: (x: number, y: number) => string;
  /** Half a row of room above it: between the series and the notes. */
  apart?: boolean;
}

export interface Legend {
  parts: string[];
  /** From the legend's x to the right end of its widest label. */
  width: number;
  /** The y below its last line. */
  bottom: number;
}

export const LEGEND_FONT_SIZE = 12;
const ROW = 20;
const LINE = 15;
const ICON_WIDTH = 24;
const ICON_GAP = 6;
/** The label room a legend always has, so that a chart of short names keeps its usual width. */
const MIN_LABEL_WIDTH = 145;
const MAX_LABEL_WIDTH = 300;

/** The legend's entries drawn from (x, top) down. */
export function renderLegend(items: readonly LegendItem[], x: number, top: number): Legend {
  const widest = Math.max(0, ...items.map((item) => textWidth(item.label, LEGEND_FONT_SIZE)));
  const labelWidth = Math.min(MAX_LABEL_WIDTH, Math.max(MIN_LABEL_WIDTH, Math.ceil(widest)));
  const textX = x + ICON_WIDTH + ICON_GAP;
  const parts: string[] = [];
  let y = top;
  for (const item of items) {
    if (item.apart) y += ROW / 2;
    const lines = wrapText(item.label, labelWidth, LEGEND_FONT_SIZE);
    const spans = lines.map(
      (line, n) => `<tspan x="${textX}" dy="${n === 0 ? 0 : LINE}">${xmlText(line)}</tspan>`,
    );
    parts.push(
      item.icon(x + ICON_WIDTH / 2, y),
      `<text class="legend" x="${textX}" y="${y + 4}">${spans.join('')}</text>`,
    );
    y += ROW + (lines.length - 1) * LINE;
  }
  return { parts, width: ICON_WIDTH + ICON_GAP + labelWidth, bottom: y };
}
