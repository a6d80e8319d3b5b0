import { describe, expect, it } from 'vitest';
import { lastDays } from '../../src/domain/quota';
import type { DailyUsage } from '../../src/services/account-store';
import { chartDescription, shortDay, tickLabel, usageChart, yAxis } from '../../src/pages/usage-chart';

/** Thirty days ending 2026-03-15, zero but for the days given (by date). */
function month(counts: Record<string, Partial<Omit<DailyUsage, 'day'>>> = {}): DailyUsage[] {
  return lastDays(new Date('2026-03-15T12:00:00Z'), 30).map((day) => ({
    day,
    delivered: 0,
    refusedQuota: 0,
    refusedRate: 0,
    ...counts[day],
  }));
}

/** What a test reads back from the SVG: ticks, x labels, the legend, and each day's bars by series. */
function parse(svg: string) {
  const attr = (tag: string, name: string) => Number(new RegExp(`\\b${name}="([^"]+)"`).exec(tag)![1]);
  const bars = [...svg.matchAll(/<g data-day="([^"]+)"><title>([^<]+)<\/title>(.*?)<\/g>/g)].map(([, day, title, rects]) => ({
    day,
    title,
    rects: [...rects!.matchAll(/<rect class="(\w+)"[^>]*>/g)].map(([tag, series]) => ({
      series,
      height: attr(tag, 'height'),
      y: attr(tag, 'y'),
    })),
  }));
  return {
    ticks: [...svg.matchAll(/<g class="tick">.*?text-anchor="end">([^<]+)<\/text>/g)].map((m) => m[1]),
    xLabels: [...svg.matchAll(/<text class="x-label[^"]*"[^>]*>(\d+ \w+)<\/text>/g)].map((m) => m[1]),
    /** The day labels a phone shows (the others are `x-label-between`). */
    phoneLabels: [...svg.matchAll(/<text class="x-label"[^>]*>(\d+ \w+)<\/text>/g)].map((m) => m[1]),
    legend: [...svg.matchAll(/<li><svg [^>]*><rect [^>]*\/><\/svg>([^<]+)<\/li>/g)].map((m) => m[1]),
    title: /<title id="usage-chart-title">([^<]+)<\/title>/.exec(svg)?.[1],
    desc: /<desc id="usage-chart-desc">([^<]+)<\/desc>/.exec(svg)?.[1],
    bars,
  };
}

const PLOT_HEIGHT = 252 - 36;

describe('the usage chart', () => {
  it('an empty month: 30 days without bars, an axis of 0 to 4, a legend of zeros and a sentence saying so', () => {
    const svg = usageChart(month()).text;
    const chart = parse(svg);
    expect(chart.bars).toHaveLength(30);
    expect(chart.bars.flatMap((bar) => bar.rects)).toEqual([]);
    expect(chart.ticks).toEqual(['0', '1', '2', '3', '4']);
    expect(chart.legend).toEqual(['Delivered (0)', 'Refused: quota (0)', 'Refused: rate limit (0)']);
    expect(chart.title).toBe('Requests per day, last 30 days');
    expect(chart.desc).toBe('From 14 Feb to 15 Mar 2026 (UTC): no conversions delivered and no requests refused.');
    expect(svg).toContain('No requests in these 30 days');
    expect(chart.xLabels).toEqual(['15 Feb', '22 Feb', '1 Mar', '8 Mar', '15 Mar']);
    expect(chart.phoneLabels).toEqual(['15 Feb', '1 Mar', '15 Mar']);
  });

  it('one busy day: its bar reaches the top of an axis rounded up to 1,000, the other days stay empty', () => {
    const chart = parse(usageChart(month({ '2026-03-03': { delivered: 957 } })).text);
    expect(chart.ticks).toEqual(['0', '250', '500', '750', '1,000']);
    const drawn = chart.bars.filter((bar) => bar.rects.length > 0);
    expect(drawn.map((bar) => bar.day)).toEqual(['2026-03-03']);
    expect(drawn[0]!.rects).toEqual([
      { series: 'delivered', height: Math.round((957 / 1000) * PLOT_HEIGHT * 10) / 10, y: expect.any(Number) },
    ]);
    expect(drawn[0]!.title).toBe('3 Mar: 957 delivered, 0 refused for the quota, 0 refused for the rate limit');
    expect(chart.legend[0]).toBe('Delivered (957)');
    expect(chart.desc).toBe(
      'From 14 Feb to 15 Mar 2026 (UTC): 957 conversions delivered, 0 requests refused for the monthly quota and 0 for the rate limit. Busiest day: 3 Mar, 957 delivered.',
    );
  });

  it('refusals stack on the delivered conversions, quota then rate limit, and count in the legend and the description', () => {
    const chart = parse(
      usageChart(
        month({ '2026-03-14': { delivered: 6, refusedQuota: 1 }, '2026-03-15': { delivered: 2, refusedQuota: 3, refusedRate: 2 } }),
      ).text,
    );
    expect(chart.ticks).toEqual(['0', '2', '4', '6', '8']);
    const today = chart.bars.at(-1)!;
    expect(today.rects.map((r) => r.series)).toEqual(['delivered', 'refusedQuota', 'refusedRate']);
    const unit = PLOT_HEIGHT / 8;
    expect(today.rects.map((r) => r.height)).toEqual([2, 3, 2].map((n) => Math.round(n * unit * 10) / 10));
    // Each segment sits on the one below it.
    expect(today.rects[1]!.y + today.rects[1]!.height).toBeCloseTo(today.rects[0]!.y, 0);
    expect(today.rects[2]!.y + today.rects[2]!.height).toBeCloseTo(today.rects[1]!.y, 0);
    expect(chart.bars.at(-2)!.rects.map((r) => r.series)).toEqual(['delivered', 'refusedQuota']);
    expect(chart.legend).toEqual(['Delivered (8)', 'Refused: quota (4)', 'Refused: rate limit (2)']);
    expect(chart.desc).toContain(
      '8 conversions delivered, 4 requests refused for the monthly quota and 2 for the rate limit. Busiest day: 14 Mar, 6 delivered.',
    );
  });

  it('only refusals (a key over its quota all month): bars without a busiest day', () => {
    const chart = parse(usageChart(month({ '2026-03-10': { refusedQuota: 12_345 } })).text);
    expect(chart.ticks).toEqual(['0', '5k', '10k', '15k']);
    expect(chart.desc).toBe(
      'From 14 Feb to 15 Mar 2026 (UTC): 0 conversions delivered, 12,345 requests refused for the monthly quota and 0 for the rate limit.',
    );
  });

  it('is a labelled image with no script, no style attribute and no event handler', () => {
    const svg = usageChart(month({ '2026-03-15': { delivered: 1 } })).text;
    expect(svg).toMatch(/<svg class="usage-chart" [^>]*role="img" aria-labelledby="usage-chart-title usage-chart-desc"/);
    expect(svg).not.toMatch(/<script|style=|\son[a-z]+=/);
  });

  it('is drawn at the width of the page, not scaled: no viewBox, every x in percent, the text in pixels', () => {
    const svg = usageChart(month({ '2026-03-15': { delivered: 3, refusedRate: 1 } })).text;
    const chart = /<svg class="usage-chart" [^>]*>/.exec(svg)![0];
    expect(chart).not.toContain('viewBox');
    expect(chart).toMatch(/ width="100%" height="\d+"/);
    expect(chart).toContain('font-size="13"');
    const xs = [...svg.matchAll(/\s(?:x|x1|x2|width)="([^"]+)"/g)].map((m) => m[1]);
    // The legend's swatches are the only drawings in pixels.
    expect(xs.filter((x) => !x!.endsWith('%'))).toEqual(['14', '14', '14', '14', '14', '14']);
    for (const x of xs.filter((x) => x!.endsWith('%'))) expect(parseFloat(x!)).toBeLessThanOrEqual(100);
    // Today's label ends at the plot's right edge, so it is never cut.
    expect(svg).toMatch(/<text class="x-label" x="98%" text-anchor="end" [^>]*>15 Mar<\/text>/);
  });
});

describe('the tick labels: at most five characters, one unit per axis', () => {
  it.each([
    [1000, [0, 250, 500, 750, 1000], ['0', '250', '500', '750', '1,000']],
    [7500, [0, 2500, 5000, 7500], ['0', '2,500', '5,000', '7,500']],
    [12_500, [0, 2500, 12_500], ['0', '2.5k', '12.5k']],
    [1_000_000, [250_000, 1_000_000], ['250k', '1000k']],
    [7_500_000, [2_500_000, 7_500_000], ['2500k', '7500k']],
    [25_000_000, [5_000_000, 25_000_000], ['5M', '25M']],
  ])('an axis up to %d', (top, values, labels) => {
    expect(values.map((value) => tickLabel(value, top))).toEqual(labels);
    for (const label of labels) expect(label.length).toBeLessThanOrEqual(5);
  });
});

describe('the y axis', () => {
  it.each([
    [0, 4, 1],
    [4, 4, 1],
    [5, 6, 2],
    [7, 8, 2],
    [10, 10, 5],
    [41, 60, 20],
    [100, 100, 25],
    [957, 1000, 250],
    [1000, 1000, 250],
    [12_345, 15_000, 5000],
  ])('a highest bar of %d: top %d, ticks every %d', (max, top, step) => {
    expect(yAxis(max)).toEqual({ top, step });
  });
});

describe('the day labels', () => {
  it.each([
    ['2026-03-03', '3 Mar'],
    ['2026-12-31', '31 Dec'],
    ['2027-01-01', '1 Jan'],
  ])('%s is %s', (day, label) => {
    expect(shortDay(day)).toBe(label);
  });

  it('the description spans the first and last day', () => {
    expect(chartDescription(month())).toMatch(/^From 14 Feb to 15 Mar 2026 \(UTC\)/);
  });
});
