import { groupThousands } from '../domain/quota';
import { counted } from '../domain/counted';
import type { DailyUsage } from '../services/account-store';
import { html, type SafeHtml } from './html';

/**
 * The usage chart of the account page: one stacked bar per UTC day (conversions delivered, then
 * requests refused for the monthly quota, then refused for the rate limit), drawn as inline SVG on
 * the server, so it needs no script and reads the same in a screenshot. Text and grid lines take
 * the page's text colour (`currentColor`), so the chart follows a dark colour scheme.
 *
 * The SVG has no viewBox: it is as wide as the page and a fixed height, every horizontal position
 * is a percentage of its width and the text keeps its size in CSS pixels, so the labels read the
 * same on a phone as on a desktop (a scaled drawing would shrink them to a third on a phone). The
 * legend is HTML beside it, so it wraps; on narrow screens the style sheet shows every second
 * day label (`x-label-between`).
 */

const HEIGHT = 288;
/** The plot's edges: left and right in percent of the width (the tick labels sit left of it), top and bottom in pixels. */
const PLOT = { left: 14, right: 98, top: 36, bottom: HEIGHT - 36 } as const;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The three series, bottom to top, with colours that stay apart for the common colour blindnesses. */
export const SERIES = [
  { field: 'delivered', label: 'Delivered', colour: '#2563eb' },
  { field: 'refusedQuota', label: 'Refused: quota', colour: '#d97706' },
  { field: 'refusedRate', label: 'Refused: rate limit', colour: '#c026d3' },
] as const satisfies readonly { field: keyof Omit<DailyUsage, 'day'>; label: string; colour: string }[];

/** `2026-11-03` as `3 Nov`. */
export function shortDay(day: string): string {
  return `${Number(day.slice(8, 10))} ${MONTHS[Number(day.slice(5, 7)) - 1]}`;
}

/**
 * The y axis of a chart whose highest bar is `max`: whole-number ticks 1, 2, 2.5 or 5 times a power
 * of ten apart, at most about five of them, the top one at or above `max` (0 to 4 for small counts).
 */
export function yAxis(max: number): { top: number; step: number } {
  const raw = Math.max(max, 4) / 4;
  const power = 10 ** Math.floor(Math.log10(raw));
  const multiple = [1, 2, 2.5, 5, 10].find((m) => m * power >= raw && Number.isInteger(m * power))!;
  const step = multiple * power;
  return { top: step * Math.ceil(Math.max(max, 4) / step), step };
}

/**
 * A tick's label on an axis up to `top`, at most five characters so it fits left of the plot on a
 * phone: in thousands from 10,000 (`2.5k`, `15k`), in millions from 10,000,000 (`25M`), else grouped (`7,500`); zero is `0`.
 */
export function tickLabel(value: number, top: number): string {
  if (value === 0) return '0';
  if (top >= 10_000_000) return `${value / 1_000_000}M`;
  return top >= 10_000 ? `${value / 1000}k` : groupThousands(value);
}

const total = (day: DailyUsage) => day.delivered + day.refusedQuota + day.refusedRate;
const sum = (days: readonly DailyUsage[], field: (typeof SERIES)[number]['field']) => days.reduce((n, day) => n + day[field], 0);

/** The sentence a screen reader gives for the chart (its `<desc>`). */
export function chartDescription(days: readonly DailyUsage[]): string {
  const range = `From ${shortDay(days[0]!.day)} to ${shortDay(days.at(-1)!.day)} ${days.at(-1)!.day.slice(0, 4)} (UTC)`;
  const [delivered, quota, rate] = SERIES.map((s) => sum(days, s.field));
  if (days.every((day) => total(day) === 0)) return `${range}: no conversions delivered and no requests refused.`;
  const busiest = days.reduce((best, day) => (day.delivered > best.delivered ? day : best));
  const peak = busiest.delivered > 0 ? ` Busiest day: ${shortDay(busiest.day)}, ${groupThousands(busiest.delivered)} delivered.` : '';
  return `${range}: ${counted(delivered!, 'conversion')} delivered, ${counted(quota!, 'request')} refused for the monthly quota and ${groupThousands(rate!)} for the rate limit.${peak}`;
}

/** The chart for these days (oldest first): its legend (an HTML list) and the `<svg>` with its title and description. */
export function usageChart(days: readonly DailyUsage[]): SafeHtml {
  const { top, step } = yAxis(Math.max(...days.map(total)));
  const y = (value: number) => PLOT.bottom - (value / top) * (PLOT.bottom - PLOT.top);
  const slot = (PLOT.right - PLOT.left) / days.length;
  const empty = days.every((day) => total(day) === 0);
  return html`${legend(days)}
<svg class="usage-chart" width="100%" height="${HEIGHT}" role="img" aria-labelledby="usage-chart-title usage-chart-desc" font-family="system-ui, sans-serif" font-size="13" fill="currentColor">
<title id="usage-chart-title">Requests per day, last ${days.length} days</title>
<desc id="usage-chart-desc">${chartDescription(days)}</desc>
${Array.from({ length: top / step + 1 }, (_, i) => i * step).map(
  (
    tick,
  ) => html`<g class="tick"><line x1="${PLOT.left}%" x2="${PLOT.right}%" y1="${y(tick)}" y2="${y(tick)}" stroke="currentColor" stroke-opacity="${tick === 0 ? 0.6 : 0.15}"/><text x="${PLOT.left}%" dx="-6" y="${y(tick) + 4}" text-anchor="end">${tickLabel(tick, top)}</text></g>
`,
)}
<text x="${PLOT.left}%" y="${PLOT.top - 14}" font-size="12" fill-opacity="0.75">per UTC day</text>
${days.map((day, i) => bar(day, PLOT.left + i * slot + slot * 0.15, slot * 0.7, y))}
${days.map((day, i) => dayLabel(day, days.length - 1 - i, PLOT.left + (i + 0.5) * slot))}
${empty ? html`<text x="${(PLOT.left + PLOT.right) / 2}%" y="${(PLOT.top + PLOT.bottom) / 2}" text-anchor="middle" fill-opacity="0.75">No requests in these ${days.length} days</text>` : ''}
</svg>`;
}

/**
 * The x axis' label of the day `age` days before the last, every seventh day from it: centred under
 * its bar at `centre` (percent), but the last day's ends at the plot's right edge so it is never cut.
 */
function dayLabel(day: DailyUsage, age: number, centre: number): SafeHtml | '' {
  if (age % 7 !== 0) return '';
  const place = age === 0 ? html`x="${PLOT.right}%" text-anchor="end"` : html`x="${percent(centre)}" text-anchor="middle"`;
  return html`<text class="x-label${age % 14 === 0 ? '' : ' x-label-between'}" ${place} y="${PLOT.bottom + 18}">${shortDay(day.day)}</text>
`;
}

/** One day's stacked bar (x and width in percent): a `<g>` whose `<title>` says the day's counts, one `<rect>` per non-zero series. */
function bar(day: DailyUsage, x: number, width: number, y: (value: number) => number): SafeHtml {
  let base = 0;
  const rects = SERIES.filter((s) => day[s.field] > 0).map((s) => {
    const from = base;
    base += day[s.field];
    return html`<rect class="${s.field}" x="${percent(x)}" y="${round(y(base))}" width="${percent(width)}" height="${round(y(from) - y(base))}" fill="${s.colour}"/>`;
  });
  const label = `${shortDay(day.day)}: ${groupThousands(day.delivered)} delivered, ${groupThousands(day.refusedQuota)} refused for the quota, ${groupThousands(day.refusedRate)} refused for the rate limit`;
  return html`<g data-day="${day.day}"><title>${label}</title>${rects}</g>
`;
}

/** The series with their totals, as a list that wraps on a narrow screen; each swatch is a small SVG (no inline style under the CSP). */
function legend(days: readonly DailyUsage[]): SafeHtml {
  return html`<ul class="chart-legend">${SERIES.map(
    (s) =>
      html`<li><svg width="14" height="14" aria-hidden="true"><rect width="14" height="14" fill="${s.colour}"/></svg>${s.label} (${groupThousands(sum(days, s.field))})</li>`,
  )}</ul>`;
}

const round = (n: number) => Math.round(n * 10) / 10;
const percent = (n: number) => `${Math.round(n * 100) / 100}%`;
