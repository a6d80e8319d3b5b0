import { z } from 'zod';
import { counted } from '../../domain/counted';
import { dataOr, toolSuccess } from '../tool-results';
import { defined, type ToolDefinition } from './shared';

interface UnitEntry {
  id: string;
  name: string;
  symbol: string;
  category: string;
  aliases: string[];
  exact: boolean;
}

interface CategoryEntry {
  id: string;
  name: string;
  baseUnit: string;
}

/** Units listed at most per call: enough to choose from, little enough for a model's context. */
const MAX_UNITS = 40;

const inputSchema = {
  query: z
    .string()
    .optional()
    .describe('Part of a unit id, name, symbol or alias, any case ("mile", "kWh", "gallon"). Without it, every unit of `category`.'),
  category: z
    .string()
    .optional()
    .describe('A category (dimension) id: length, mass, speed, energy, temperature... Call with no arguments to list the categories.'),
};

const categorySchema = z.object({ id: z.string(), name: z.string(), baseUnit: z.string() });
const unitSchema = z.object({
  id: z.string(),
  name: z.string(),
  symbol: z.string(),
  category: z.string(),
  aliases: z.array(z.string()),
  exact: z.boolean(),
});

/** Without arguments the categories; with them the units found. */
const categoriesAnswer = z.object({ categories: z.array(categorySchema) });
const unitsAnswer = z.object({
  units: z.array(unitSchema),
  total: z.number().int().describe('How many units match; more than `units` holds when truncated.'),
  truncated: z.boolean(),
});

export const findUnitsTool = {
  name: 'find_units',
  title: 'Find units by name, alias or category',
  description:
    'Looks units up in the catalogue: by part of an id, name, symbol or alias, and/or by category (dimension). ' +
    `Answers the categories and up to ${MAX_UNITS} units with their ids (what convert takes), symbols and aliases. Public data: uses no quota.`,
  inputSchema,
  outputSchemas: [categoriesAnswer, unitsAnswer],
  async run(args, runDocument) {
    const result = await runDocument('McpFindUnits', defined({ category: args.category }));
    const answer = dataOr<{ categories: CategoryEntry[]; units: UnitEntry[] }>(result);
    if ('failed' in answer) return answer.failed;
    const { categories, units } = answer.data;
    if (args.query === undefined && args.category === undefined) {
      const text = `${counted(categories.length, 'category', 'categories')}: ${categories.map((c) => c.id).join(', ')}. Call again with a category or a query to list units.`;
      return toolSuccess(text, { categories });
    }
    const needle = args.query?.trim().toLowerCase() ?? '';
    const matches = units.filter((unit) =>
      [unit.id, unit.name, unit.symbol, ...unit.aliases].some((word) => word.toLowerCase().includes(needle)),
    );
    const shown = matches.slice(0, MAX_UNITS);
    const listing = shown.map((u) => `${u.id} (${u.symbol}, ${u.category})`).join(', ');
    const more = matches.length > shown.length ? ` ${matches.length - shown.length} more: narrow the query or give a category.` : '';
    const text =
      matches.length === 0
        ? `No unit matches; categories: ${categories.map((c) => c.id).join(', ')}.`
        : `${counted(matches.length, 'unit')}: ${listing}.${more}`;
    return toolSuccess(text, { units: shown, total: matches.length, truncated: matches.length > shown.length });
  },
} satisfies ToolDefinition<typeof inputSchema>;
