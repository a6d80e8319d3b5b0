import { z } from 'zod';
import { counted } from '../../domain/counted';
import { dataOr, toolSuccess } from '../tool-results';
import { decimalText, type ToolDefinition } from './shared';

interface CurrencyEntry {
  code: string;
  name: string;
  status: string;
  firstDate: string | null;
  lastDate: string | null;
  minorUnits: number | null;
  successor: { successor: string; since: string } | null;
}

const currencySchema = z.object({
  code: z.string(),
  name: z.string(),
  status: z.enum(['active', 'retired']),
  firstDate: z.string().nullable(),
  lastDate: z.string().nullable(),
  minorUnits: z.number().int().nullable(),
  successor: z.object({ successor: z.string(), rate: decimalText, since: z.string(), source: z.string() }).nullable(),
  sources: z.array(z.object({ source: z.string(), first: z.string(), last: z.string() })),
});

const outputSchema = z.object({
  currencies: z.array(currencySchema),
  total: z.number().int().describe('How many currencies match; more than `currencies` holds when truncated.'),
  truncated: z.boolean(),
});

/** Currencies listed at most per call. */
const MAX_CURRENCIES = 40;

const inputSchema = {
  query: z
    .string()
    .optional()
    .describe('A currency code ("CHF") or part of its English name ("franc", "yen"), any case. Without it, every currency.'),
};

export const findCurrenciesTool = {
  name: 'find_currencies',
  title: 'Find currencies by code or name',
  description:
    'Looks currencies up in the registry of every currency the ECB has quoted: by code or part of the name. Answers each with its code, name, ' +
    'status (active or retired), the first and last day the ECB quoted it, its ISO 4217 minor units, and the currency that replaced it by law. Public data: uses no quota.',
  inputSchema,
  outputSchemas: [outputSchema],
  async run(args, runDocument) {
    const result = await runDocument('McpFindCurrencies', {});
    const answer = dataOr<{ currencies: CurrencyEntry[] }>(result);
    if ('failed' in answer) return answer.failed;
    const needle = args.query?.trim().toLowerCase() ?? '';
    const exact = answer.data.currencies.filter((c) => c.code.toLowerCase() === needle);
    const matches =
      exact.length > 0
        ? exact
        : answer.data.currencies.filter((c) => c.code.toLowerCase().includes(needle) || c.name.toLowerCase().includes(needle));
    const shown = matches.slice(0, MAX_CURRENCIES);
    const listing = shown.map((c) => `${c.code} ${c.name}${statusNote(c)}`).join(', ');
    const more = matches.length > shown.length ? ` ${matches.length - shown.length} more: narrow the query.` : '';
    const text =
      matches.length === 0
        ? 'No currency matches: the ECB never quoted it.'
        : `${counted(matches.length, 'currency', 'currencies')}: ${listing}.${more}`;
    return toolSuccess(text, { currencies: shown, total: matches.length, truncated: matches.length > shown.length });
  },
} satisfies ToolDefinition<typeof inputSchema>;

/** " (replaced by EUR on 1999-01-01)", " (last quoted 2022-03-01)", or nothing for an active currency. */
function statusNote(currency: CurrencyEntry): string {
  if (currency.successor) return ` (replaced by ${currency.successor.successor} on ${currency.successor.since})`;
  if (currency.status === 'retired') return currency.lastDate ? ` (last quoted ${currency.lastDate})` : ' (retired)';
  return '';
}
