import { z } from 'zod';
import { SOURCE_IDS } from '../../domain/sources/types';
import { dataOr, toolSuccess } from '../tool-results';
import {
  codeList,
  codesArgument,
  costOf,
  costSchema,
  dateArgument,
  decimalsArgument,
  decimalText,
  defined,
  explainPublication,
  resolutionSchema,
  type Resolution,
  type ToolDefinition,
} from './shared';

interface RatesAnswer {
  date: string;
  base: string;
  amount: string | null;
  source: string;
  rates: Record<string, string>;
  resolved: Resolution | null;
}

const inputSchema = {
  date: dateArgument
    .optional()
    .describe(
      'A day, YYYY-MM-DD: the rates of the latest ECB publication on or before it (Developer plan). Without it, the latest publication.',
    ),
  base: z.string().optional().describe('The currency the rates are expressed against ("USD"); EUR by default.'),
  symbols: codesArgument
    .optional()
    .describe(
      'Only these currencies: one code ("JPY"), a comma list ("JPY,GBP") or a list (["JPY", "GBP"]). Without it, every currency quoted that day.',
    ),
  amount: z.string().optional().describe('Multiply every rate by this amount of the base (a decimal string, "250").'),
  decimals: decimalsArgument.optional(),
  source: z
    .enum(SOURCE_IDS)
    .optional()
    .describe(
      'The publication of this source (ecb by default; boc, nb, cnb, nbp, cbr, boi, imf, nbu), against its own base unless `base` says otherwise.',
    ),
};

const outputSchema = z.object({
  date: z.string().describe('The publication used.'),
  base: z.string(),
  amount: decimalText.optional().describe('The amount of the base every rate is multiplied by, when one was given.'),
  source: z.string(),
  rates: z.record(z.string(), decimalText),
  resolved: resolutionSchema.nullable(),
  cost: costSchema,
});

export const ratesTool = {
  name: 'rates',
  title: 'ECB exchange rates of a day',
  description:
    'Lists the ECB euro reference rates of one publication: units of each currency per 1 of `base` (or per `amount` of it), exact. ' +
    'Without `date`, the latest publication; with it, the latest publication on or before that day, and why when that is an earlier day. Uses no conversion quota.',
  inputSchema,
  outputSchemas: [outputSchema],
  async run(args, runDocument) {
    const variables = defined({
      date: args.date,
      base: args.base,
      symbols: args.symbols === undefined ? undefined : codeList(args.symbols),
      amount: args.amount,
      decimals: args.decimals,
      source: args.source,
    });
    const result = await runDocument('McpRates', variables);
    const answer = dataOr<{ rates: RatesAnswer }>(result);
    if ('failed' in answer) return answer.failed;
    const rates = answer.data.rates;
    const per = `${rates.amount ?? '1'} ${rates.base}`;
    const listing = Object.entries(rates.rates)
      .map(([code, value]) => `${code} ${value}`)
      .join(', ');
    const text = `Per ${per}, ${explainPublication(rates.date, rates.resolved, rates.source)}: ${listing}.`;
    return toolSuccess(text, { ...defined({ ...rates, amount: rates.amount ?? undefined }), cost: costOf(result) });
  },
} satisfies ToolDefinition<typeof inputSchema>;
