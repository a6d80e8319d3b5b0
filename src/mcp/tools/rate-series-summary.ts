import { z } from 'zod';
import { ApiError } from '../../domain/errors';
import { dataOr, toolRefusal, toolSuccess } from '../tool-results';
import { codeList, codesArgument, decimalText, defined, type ToolDefinition } from './shared';

interface Figures {
  code: string;
  first: string;
  last: string;
  min: string;
  max: string;
  change: string;
  changePercent: string;
}

interface Change {
  code: string;
  start: string;
  startRate: string;
  end: string;
  endRate: string;
  change: string;
  changePercent: string;
}

interface SeriesAnswer {
  base: string;
  start: string;
  end: string;
  group: string;
  source: string;
  complete: boolean;
  nextCursor: string | null;
  symbols: string[];
  change: Change[];
  entries: { period: string; start: string; end: string; publications: number; rates: Record<string, string>; figures: Figures[] }[];
}

/** Periods answered at most: a summary, not an export (REST and GraphQL serve whole series). */
export const MAX_PERIODS = 36;

/** Currencies summarised at most per call; more is refused, never cut silently. */
export const MAX_SYMBOLS = 5;

const changeSchema = z.object({
  code: z.string(),
  start: z.string(),
  startRate: decimalText,
  end: z.string(),
  endRate: decimalText,
  change: decimalText,
  changePercent: decimalText,
});

const entrySchema = z.object({
  period: z.string(),
  start: z.string(),
  end: z.string(),
  publications: z.number().int(),
  rates: z.record(z.string(), decimalText).describe("Each currency's exact mean over the period."),
  figures: z.array(
    z.object({
      code: z.string(),
      first: decimalText,
      last: decimalText,
      min: decimalText,
      max: decimalText,
      change: decimalText,
      changePercent: decimalText,
    }),
  ),
});

const outputSchema = z.object({
  base: z.string(),
  start: z.string(),
  end: z.string(),
  group: z.enum(['week', 'month', 'year']),
  source: z.string(),
  complete: z.boolean(),
  symbols: z.array(z.string()),
  change: z.array(changeSchema),
  entries: z.array(entrySchema),
  truncated: z.boolean().describe(`True when the range holds more than ${MAX_PERIODS} periods: \`more\` says where the rest is.`),
  more: z.string().optional(),
});

const inputSchema = {
  start: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'a day as YYYY-MM-DD')
    .describe('First day of the range, YYYY-MM-DD.'),
  end: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'a day as YYYY-MM-DD')
    .optional()
    .describe('Last day of the range, YYYY-MM-DD; without it, the newest publication.'),
  symbols: codesArgument.describe(
    `The currencies to summarise: one code ("USD"), a comma list ("USD,JPY") or a list; at most ${MAX_SYMBOLS} (more is refused).`,
  ),
  base: z.string().optional().describe("The currency the rates are expressed against; EUR by default (with `source`, that source's base)."),
  group: z.enum(['week', 'month', 'year']).optional().describe('The period of each mean: ISO week, month (default) or year.'),
  source: z
    .string()
    .optional()
    .describe(
      "The rates of this source only (ecb by default; boc, nb, cnb, nbp, cbr, boi, imf, nbu): that source's own publication days and figures.",
    ),
};

export const rateSeriesSummaryTool = {
  name: 'rate_series_summary',
  title: 'Exchange-rate means per week, month or year',
  description:
    `Summarises ECB rates (or another source's, with \`source\`) over a range as exact period means (per ISO week, month or year), at most ${MAX_PERIODS} periods and ${MAX_SYMBOLS} currencies, ` +
    "with each period's first, last, lowest and highest rate and its change, and each currency's change over the whole range, to describe a trend. Needs the Developer plan; uses no conversion quota. For daily rates or longer ranges use the REST route GET /v1/currency/rates/series (CSV, NDJSON) or the GraphQL field rateSeries.",
  inputSchema,
  outputSchemas: [outputSchema],
  async run(args, runDocument) {
    const symbols = codeList(args.symbols);
    const distinct = new Set(symbols.map((code) => code.toUpperCase())).size;
    if (distinct > MAX_SYMBOLS) {
      return toolRefusal(
        new ApiError(
          'INVALID_REQUEST',
          `symbols names ${distinct} currencies; a summary takes at most ${MAX_SYMBOLS}: call once per group of ${MAX_SYMBOLS}, or read them all at GET /v1/currency/rates/series (or the GraphQL field rateSeries).`,
          { param: 'symbols' },
        ),
      );
    }
    const group = args.group ?? 'month';
    const result = await runDocument(
      'McpRateSeriesSummary',
      defined({ start: args.start, end: args.end, base: args.base, symbols, group, source: args.source }),
    );
    const answer = dataOr<{ rateSeries: SeriesAnswer }>(result);
    if ('failed' in answer) return answer.failed;
    const series = answer.data.rateSeries;
    const entries = series.entries.slice(0, MAX_PERIODS);
    const truncated = series.entries.length > entries.length || series.nextCursor !== null;
    const lines = entries.map((e) => `${e.period}: ${Object.entries(e.rates).map(periodText(e.figures)).join(', ')}`);
    const more = truncated ? `\nMore periods than shown: ${moreAt(series, group)}` : '';
    const change = series.change.map(
      (c) => `${c.code} ${c.startRate} (${c.start}) to ${c.endRate} (${c.end}): ${c.change} (${c.changePercent} %)`,
    );
    const text =
      `Mean ${group}ly rates per 1 ${series.base} (${series.source}), ${series.start} to ${series.end}:\n${lines.join('\n')}` +
      `\nChange over the range: ${change.join('; ')}${more}`;
    const { base, start, end, source, complete } = series;
    const structured = { base, start, end, group, source, complete, symbols: series.symbols, change: series.change, entries, truncated };
    return toolSuccess(text, truncated ? { ...structured, more: moreAt(series, group) } : structured);
  },
} satisfies ToolDefinition<typeof inputSchema>;

/** "USD 1.0872 (first 1.0856, last 1.0811, change -0.0045 = -0.41 %, low 1.0802, high 1.0939)": a period's mean, then its figures. */
function periodText(figures: readonly Figures[]) {
  return ([code, mean]: [string, string]): string => {
    const f = figures.find((one) => one.code === code);
    if (f === undefined) return `${code} ${mean}`;
    return `${code} ${mean} (first ${f.first}, last ${f.last}, change ${f.change} = ${f.changePercent} %, low ${f.min}, high ${f.max})`;
  };
}

function moreAt(series: SeriesAnswer, group: string): string {
  const query = new URLSearchParams({ start: series.start, end: series.end, group, base: series.base, symbols: series.symbols.join(',') });
  if (series.source !== 'ecb') query.set('source', series.source);
  return `ask a shorter range or a longer group, or read the whole series at GET /v1/currency/rates/series?${query} (or the GraphQL field rateSeries).`;
}
