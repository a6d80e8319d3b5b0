import { groupThousands } from '../domain/quota';
import { counted } from '../domain/counted';
import type { DailyUsage } from '../services/account-store';
import { html, type SafeHtml } from './html';

/**
 * The usage chart of the account page: one stacked bar per UTC day (conversions delivered, then
 * requests refused for the monthly quota, then refused for the rate limit), drawn as inline SVG on
 * the server, so it needs no script and reads the same in a screenshot. Text and grid lines take
 * the page's text colour (`currentColor`), so the chart follows a dark colour scheme.
 */

const WIDTH = 760;
const HEIGHT = 300;
const PLOT = { left: 60, right: WIDTH - 28, top: 48, bottom: HEIGHT - 36 } as const;
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

/** The chart for these days (oldest first), as an `<svg>` element with its title, description and legend. */
export function usageChart(days: readonly DailyUsage[]): SafeHtml {
  const { top, step } = yAxis(Math.max(...days.map(total)));
  const y = (value: number) => PLOT.bottom - (value / top) * (PLOT.bottom - PLOT.top);
  const slot = (PLOT.right - PLOT.left) / days.length;
  const empty = days.every((day) => total(day) === 0);
  return html`<svg class="usage-chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-labelledby="usage-chart-title usage-chart-desc" font-family="system-ui, sans-serif" font-size="13" fill="currentColor">
<title id="usage-chart-title">Requests per day, last ${days.length} days</title>
<desc id="usage-chart-desc">${chartDescription(days)}</desc>
${legend(days)}
${Array.from({ length: top / step + 1 }, (_, i) => i * step).map(
  (
    tick,
  ) => html`<g class="tick"><line x1="${PLOT.left}" x2="${PLOT.right}" y1="${y(tick)}" y2="${y(tick)}" stroke="currentColor" stroke-opacity="${tick === 0 ? 0.6 : 0.15}"/><text x="${PLOT.left - 6}" y="${y(tick) + 4}" text-anchor="end">${groupThousands(tick)}</text></g>
`,
)}
<text x="${PLOT.left}" y="${PLOT.top - 10}" font-size="12" fill-opacity="0.75">per UTC day</text>
${days.map((day, i) => bar(day, PLOT.left + i * slot + slot * 0.15, slot * 0.7, y))}
${days.map((day, i) =>
  (days.length - 1 - i) % 7 === 0
    ? html`<text x="${PLOT.left + (i + 0.5) * slot}" y="${PLOT.bottom + 18}" text-anchor="middle">${shortDay(day.day)}</text>
`
    : '',
)}
${empty ? html`<text x="${(PLOT.left + PLOT.right) / 2}" y="${(PLOT.top + PLOT.bottom) / 2}" text-anchor="middle" fill-opacity="0.75">No requests with your keys in these ${days.length} days</text>` : ''}
</svg>`;
}

/** One day's stacked bar: a `<g>` whose `<title>` says the day's counts, one `<rect>` per non-zero series. */
function bar(day: DailyUsage, x: number, width: number, y: (value: number) => number): SafeHtml {
  let base = 0;
  const rects = SERIES.filter((s) => day[s.field] > 0).map((s) => {
    const from = base;
    base += day[s.field];
    return html`<rect class="${s.field}" x="${round(x)}" y="${round(y(base))}" width="${round(width)}" height="${round(y(from) - y(base))}" fill="${s.colour}"/>`;
  });
  const label = `${shortDay(day.day)}: ${groupThousands(day.delivered)} delivered, ${groupThousands(day.refusedQuota)} refused for the quota, ${groupThousands(day.refusedRate)} refused for the rate limit`;
  return html`<g data-day="${day.day}"><title>${label}</title>${rects}</g>
`;
}

function legend(days: readonly DailyUsage[]): SafeHtml {
  const width = (PLOT.right - PLOT.left) / SERIES.length;
  return html`<g class="legend">${SERIES.map((s, i) => html`<rect x="${PLOT.left + i * width}" y="8" width="14" height="14" fill="${s.colour}"/><text x="${PLOT.left + i * width + 20}" y="20">${s.label} (${groupThousands(sum(days, s.field))})</text>`)}</g>`;
}

const round = (n: number) => Math.round(n * 10) / 10;
