import { z } from 'zod';
import { knownCurrency } from '../../domain/currency/codes';
import { parseDecimalValue } from '../../domain/decimal';
import { ApiError } from '../../domain/errors';
import { SOURCE_IDS } from '../../domain/sources/types';
import { findUnit } from '../../domain/units';
import { dataOr, toolSuccess } from '../tool-results';
import {
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

interface Quantity {
  value: string;
  unit: string;
}

interface UsedRate {
  value: string;
  date: string;
  source: string;
  resolved: Resolution | null;
  rates?: Record<string, string>;
  fixed: unknown[];
  /** The published figures, when a source other than the ECB priced the rate. */
  figures?: unknown[] | null;
}

interface Converted {
  input: Quantity;
  result: Quantity;
  category?: string;
  rate?: UsedRate | null;
}

const inputSchema = {
  value: z
    .string({ error: (issue) => decimalValueMistake(issue.input) })
    .describe(
      'The amount to convert, as a decimal string ("12.5", "-0.25"): every digit is kept. A JSON number is refused, as on every surface of the API.',
    ),
  from: z
    .string()
    .min(1)
    .describe(
      'Unit id, symbol or alias ("inch", "km/h", "°F"), currency code ("USD"), or unit expression ("EUR/kWh", "m/s^2", "USD/gal").',
    ),
  to: z.string().min(1).describe('What to convert to, written like `from`; it must have the same dimension.'),
  date: dateArgument.optional(),
  decimals: decimalsArgument.optional(),
  source: z
    .enum(SOURCE_IDS)
    .optional()
    .describe(
      "Only this source's figures (ecb, boc, nb, cnb, nbp, cbr, boi, imf, nbu); without it the ECB where it quotes both currencies, else another official source, or two joined, each named in the answer.",
    ),
};

const quantitySchema = z.object({ value: decimalText, unit: z.string() });

/** The rate a conversion used, as the documents select it (`rates` only where a unit expression priced it). */
const usedRateSchema = z.object({
  value: decimalText,
  date: z.string(),
  source: z.string(),
  rates: z.record(z.string(), decimalText).optional(),
  fixed: z.array(z.object({ code: z.string(), successor: z.string(), rate: decimalText, since: z.string(), source: z.string() })),
  resolved: resolutionSchema.nullable(),
  figures: z
    .array(
      z.object({
        source: z.string(),
        table: z.string(),
        date: z.string(),
        base: z.string(),
        currency: z.string(),
        value: decimalText,
        units: decimalText,
        direction: z.string(),
      }),
    )
    .nullable(),
  legs: z.array(z.object({ source: z.string(), from: z.string(), to: z.string(), value: decimalText })).nullable(),
});

const outputSchema = z.object({
  input: quantitySchema,
  result: quantitySchema,
  category: z.string().optional().describe('The dimension, for a conversion of units or unit expressions.'),
  rate: usedRateSchema.nullable().describe('The rate used where a currency occurs; null for units alone.'),
  cost: costSchema,
});

export const convertTool = {
  name: 'convert',
  title: 'Convert units, currencies and unit expressions exactly',
  description:
    'Converts a value between units of one dimension (12.5 inch to cm), between currencies at official rates (the ECB euro reference rates, or those of another central bank or the IMF for the currencies the ECB does not quote: 100 USD to JPY, 5000 KES to USD), or between unit expressions (0.25 EUR/kWh to USD/MWh), with exact decimal arithmetic. ' +
    'Where a currency occurs the answer names the rate and the ECB publication it came from, and explains a date that had no publication. ' +
    'Each successful call uses one conversion of the monthly quota; a failed call uses none. A mistake comes back as an error with the parameter at fault and suggestions.',
  inputSchema,
  outputSchemas: [outputSchema],
  async run(args, runDocument) {
    const variables = defined({
      value: args.value,
      from: args.from,
      to: args.to,
      date: args.date,
      decimals: args.decimals,
      source: args.source,
    });
    const currencies = isCurrencyPair(args.from, args.to);
    const result = await runDocument(currencies ? 'McpConvertCurrency' : 'McpConvert', variables);
    const answer = dataOr<{ convert?: Converted; convertCurrency?: Converted }>(result);
    if ('failed' in answer) return answer.failed;
    const converted = answer.data.convert ?? answer.data.convertCurrency!;
    const rate = converted.rate ?? (converted as { exchangeRate?: UsedRate | null }).exchangeRate ?? null;
    const structured = defined({
      input: converted.input,
      result: converted.result,
      category: converted.category,
      rate,
      cost: costOf(result),
    });
    return toolSuccess(conversionText(converted, rate), structured);
  },
} satisfies ToolDefinition<typeof inputSchema>;

/** The contract's refusal of a `value` that is not a decimal string (a JSON number above all). */
function decimalValueMistake(input: unknown): string {
  try {
    parseDecimalValue(input);
  } catch (error) {
    if (error instanceof ApiError) return error.message;
  }
  return 'value must be a decimal string such as "12.5".';
}

/** Two currency codes and no unit of that name: the conversion is a currency conversion. */
function isCurrencyPair(from: string, to: string): boolean {
  return knownCurrency(from) !== undefined && knownCurrency(to) !== undefined && findUnit(from) === undefined && findUnit(to) === undefined;
}

function conversionText({ input, result, category }: Converted, rate: UsedRate | null): string {
  const line = `${input.value} ${input.unit} = ${result.value} ${result.unit}`;
  if (rate === null) return `${line}${category ? ` (${category})` : ''}.`;
  return `${line}. Rate ${rate.value}, from ${explainPublication(rate.date, rate.resolved, rate.figures ? rate.source : 'ecb')}; source: ${rate.source}.`;
}
