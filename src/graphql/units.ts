import { z } from 'zod';
import { decimalsProblem, ROUNDING_MODES } from '../domain/decimal';
import {
  aliasesOf,
  getCategory,
  getUnit,
  listCategories,
  listUnits,
  unitsOfCategory,
  type CategoryDef,
  type UnitDef,
} from '../domain/units';
import { MAX_EXPRESSION_LENGTH } from '../domain/units/expression';
import type { ExpressionConversionAnswer, ExpressionRate } from '../services/expressions';
import { named, type LanguageNames, type Named } from '../services/names';
import { RatesSourceEnum } from './currencies';
import { builder } from './builder';
import { listItems, policy } from './field-policy';
import { langArg, LocalizedNameRef, namesOf } from './names';
import { REST_OMITS_NULL } from './serialize';

/** The most aliases a unit has, and the most units a category holds: what their lists are priced at (price.ts). */
const MOST_ALIASES = Math.max(...listUnits().map((u) => aliasesOf(u.id).length));
const MOST_UNITS_IN_A_CATEGORY = Math.max(...listCategories().map((c) => unitsOfCategory(c.id).length));

export const RoundingEnum = builder.enumType('Rounding', {
  description:
    'How a result is rounded to `decimals` places. HALF_UP (default) rounds half away from zero; DOWN is toward zero, UP away from zero.',
  values: ROUNDING_MODES,
});

/** The domain's rule for `decimals` (decimalsProblem), as a zod schema for Pothos: one rule, one message. */
export const decimalsRule = z.number().superRefine((n, ctx) => {
  const problem = decimalsProblem(n);
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
});

const CategoryRef = builder.objectRef<Named<CategoryDef>>('Category').implement({
  description: 'A measurement category, such as length or temperature.',
  fields: (t) => ({
    id: t.exposeString('id'),
    name: t.exposeString('name', { description: 'English name.' }),
    localName: t.field({
      type: LocalizedNameRef,
      description: 'The name in the language asked for; CLDR names units, not categories, so this is the English name.',
      resolve: (c) => c.names.category(c),
    }),
    baseUnit: t.exposeString('baseUnit', { description: 'The unit every conversion in this category passes through.' }),
    unitCount: t.int({ resolve: (c) => c.units.length }),
  }),
});

const UnitRef = builder.objectRef<Named<UnitDef>>('Unit').implement({
  description: 'A unit of measure.',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'Canonical id: lower-case snake_case, US spelling.' }),
    name: t.exposeString('name', { description: 'English name.' }),
    localName: t.field({
      type: LocalizedNameRef,
      description: 'The name in the language asked for, from CLDR; the English name (`localized: false`) where CLDR has no such unit.',
      resolve: (u) => u.names.unit(u),
    }),
    symbol: t.exposeString('symbol', { description: 'The usual symbol; matched case-sensitively.' }),
    category: t.exposeString('category', { description: 'The id of the category.' }),
    aliases: t.stringList({
      ...listItems(MOST_ALIASES),
      description: 'Other names accepted in `from`/`to` (plurals, British spellings), case-insensitively.',
      resolve: (u) => [...aliasesOf(u.id)],
    }),
    exact: t.exposeBoolean('exact', { description: 'False only where the definition is irrational (radian, milliradian).' }),
    definition: t.exposeString('definition'),
  }),
});

const CategoryDetailsRef = builder.objectRef<Named<CategoryDef>>('CategoryDetails').implement({
  description: 'A category with its units.',
  fields: (t) => ({
    id: t.exposeString('id'),
    name: t.exposeString('name', { description: 'English name.' }),
    localName: t.field({
      type: LocalizedNameRef,
      description: 'The name in the language asked for (see Category.localName).',
      resolve: (c) => c.names.category(c),
    }),
    baseUnit: t.exposeString('baseUnit'),
    unitCount: t.int({ resolve: (c) => c.units.length }),
    units: t.field({
      ...listItems(MOST_UNITS_IN_A_CATEGORY),
      type: [UnitRef],
      resolve: (c) => unitsOfCategory(c.id).map((u) => named(u, c.names)),
    }),
  }),
});

/** A quantity of an answer; `text` only where the field was given `lang`. */
interface Quantity {
  value: string;
  unit: string;
  text?: string | null;
}

const QuantityRef = builder.objectRef<Quantity>('Quantity').implement({
  description: 'A value in a unit (or a currency).',
  fields: (t) => ({
    value: t.field({ type: 'Decimal', resolve: (q) => q.value }),
    text: t.string({
      nullable: true,
      description:
        'The value with its unit’s name as the language of `lang` counts it (`2 Meter`, `1 metre`), from CLDR. Only when `convert` is given `lang` (left out of REST answers otherwise), and for a unit CLDR names (not an expression or a currency).',
      resolve: (q) => q.text ?? null,
      extensions: { [REST_OMITS_NULL]: true },
    }),
    unit: t.exposeString('unit', {
      description:
        'Canonical unit id, upper-case currency code, or canonical unit expression (`kilometer/hour` is `km/h` written as an expression, `USD/megawatt_hour`).',
    }),
  }),
});

export const ExpressionRateRef = builder.objectRef<ExpressionRate>('ExpressionRate').implement({
  description: 'The rates a unit expression with currencies used: one ECB publication, and the fixed rates of currencies replaced by law.',
  fields: (t) => ({
    date: t.field({ type: 'Date', description: 'Publication date of the rates actually used.', resolve: (r) => r.date }),
    source: t.exposeString('source', {
      description:
        '"ecb" when on published rates only; the legal act(s) of `fixed` when on fixed rates only; both, separated by "; ", when on both.',
    }),
    value: t.field({
      type: 'Decimal',
      description: "The cross rate: what one of `from`'s money is in `to`'s money (exact, or to 40 significant digits).",
      resolve: (r) => r.value,
    }),
    rates: t.field({
      type: 'RateMap',
      description:
        'Each currency that occurs, in units per 1 EUR as published ("1" for EUR), or as fixed by law for a currency it replaced.',
      resolve: (r) => r.rates,
    }),
    // `fixed` and `resolved` are added beside the currency conversion's own, in currency.ts.
  }),
});

export const ConversionRef = builder.objectRef<ExpressionConversionAnswer>('Conversion').implement({
  description: 'The result of a unit conversion, computed exactly.',
  fields: (t) => ({
    input: t.field({ type: QuantityRef, resolve: (c) => c.input }),
    result: t.field({ type: QuantityRef, resolve: (c) => c.result }),
    category: t.exposeString('category', {
      description:
        'The category of the units, or of the dimension of a unit expression; `derived` when no category has it (m/s², a currency pair, anything with money).',
    }),
    // Not `rate`: in the batch's union a field of that name with another type (CurrencyConversion's
    // Rate!) makes SOFA alias both, which would rename the currency items' `rate` in REST answers.
    exchangeRate: t.field({
      type: ExpressionRateRef,
      nullable: true,
      description:
        'Only when a currency occurs in `from` or `to` (a currency pair, or an expression with currencies): the publication used, the cross rate and how the date resolved, as `CurrencyConversion.rate` says them. Null otherwise, and left out of REST answers.',
      resolve: (c) => c.rate ?? null,
      extensions: { [REST_OMITS_NULL]: true },
    }),
  }),
});
export { QuantityRef };

/** What `from` and `to` take, wherever a unit is taken (also batch items). */
export const UNIT_TEXT =
  `Unit id, symbol or alias (as written, it keeps meaning that unit: \`km/h\`, \`L/100 km\`), or a unit expression of at most ${MAX_EXPRESSION_LENGTH} characters: ` +
  'products and quotients of units and ECB currency codes with integer exponents, such as `m/s^2`, `kg*m/s²`, `EUR/kWh`, `USD/gal`. See docs/unit-expressions.md.';

/** `from`/`to` of `convert`: a currency code too, as in batch items. */
const SIDE_TEXT = `A currency code (case-insensitive; when both \`from\` and \`to\` are, a currency conversion, answered as \`convertCurrency\` answers it), or ${UNIT_TEXT.charAt(0).toLowerCase()}${UNIT_TEXT.slice(1)}`;

const convertArgs = (t: Parameters<Parameters<typeof builder.queryFields>[0]>[0]) => ({
  value: t.arg({ type: 'Decimal', required: true, description: 'The value to convert, as a decimal string.' }),
  from: t.arg.string({ required: true, description: SIDE_TEXT }),
  to: t.arg.string({ required: true, description: SIDE_TEXT }),
  decimals: t.arg.int({
    required: false,
    validate: { schema: decimalsRule },
    description: 'Round the result once to this many places (0 to 40).',
  }),
  rounding: t.arg({ type: RoundingEnum, required: false, description: 'Rounding mode used with `decimals`; HALF_UP by default.' }),
  minorUnits: t.arg.boolean({
    required: false,
    description:
      'Only for a currency pair (`from` and `to` both currency codes): round the result to the ISO 4217 minor units of `to` (JPY 0, USD 2, BHD 3), with `rounding`. Not together with `decimals`.',
  }),
  date: t.arg({
    type: 'Date',
    required: false,
    description:
      'Where a currency occurs in `from` or `to`: use the ECB rates in effect on this day (the latest publication on or before it); needs the Developer plan. Without a currency there are no rates to choose, and the conversion ignores it.',
  }),
  source: t.arg({
    type: RatesSourceEnum,
    required: false,
    description:
      "Where a currency occurs: use this source's figures only (ecb, boc, nb, cnb, nbp, cbr, boi, imf, nbu; GET /v1/sources). Without it: the ECB when it quotes both currencies that day, else the first source that quotes both, else two joined.",
  }),
  lang: t.arg.string({
    required: false,
    description:
      'Give `input.text` and `result.text` in this language (BCP 47; the closest supported one, see `units(lang:)`). `from` and `to` stay ids, symbols, aliases or codes in any language.',
  }),
});

/** The answer with each quantity counted in the language of `names` (`text`). */
function counted(
  answer: ExpressionConversionAnswer,
  names: LanguageNames,
): ExpressionConversionAnswer & { input: Quantity; result: Quantity } {
  return {
    ...answer,
    input: { ...answer.input, text: names.count(answer.input.unit, answer.input.value) },
    result: { ...answer.result, text: names.count(answer.result.unit, answer.result.value) },
  };
}

/**
 * `convert` and `convertPost` are one capability; SOFA maps one field to one method, so there are two.
 * `convertPost` is deprecated only so that GraphiQL's docs and clients' completion leave it out
 * (they hide deprecated fields); it keeps working, and SOFA still serves POST /v1/convert from it.
 */
const convertField = (t: Parameters<Parameters<typeof builder.queryFields>[0]>[0], description: string, deprecationReason?: string) =>
  t.field({
    ...policy({ access: 'key', conversions: 'one' }),
    type: ConversionRef,
    nullable: true,
    description,
    ...(deprecationReason === undefined ? {} : { deprecationReason }),
    args: convertArgs(t),
    resolve: async (_, args, ctx, info) => {
      const answer = await ctx.services.conversions.convert(args, await ctx.requestContext.caller(info.path.key as string));
      return args.lang === null || args.lang === undefined ? answer : counted(answer, namesOf(ctx, args.lang));
    },
  });

builder.queryFields((t) => ({
  categories: t.field({
    ...policy({ access: 'public', items: listCategories().length }),
    type: [CategoryRef],
    nullable: true,
    description: 'The 15 measurement categories, in catalogue order. Public.',
    args: { lang: langArg(t) },
    resolve: (_, { lang }, ctx) => {
      const names = namesOf(ctx, lang);
      return listCategories().map((c) => named(c, names));
    },
  }),
  category: t.field({
    ...policy({ access: 'public' }),
    type: CategoryDetailsRef,
    nullable: true,
    description: 'One category with its units. Public.',
    args: { id: t.arg.string({ required: true, description: 'Category id, case-insensitive.' }), lang: langArg(t) },
    resolve: (_, { id, lang }, ctx) => {
      const names = namesOf(ctx, lang);
      return named(getCategory(id), names);
    },
  }),
  units: t.field({
    ...policy({ access: 'public', items: listUnits().length }),
    type: [UnitRef],
    nullable: true,
    description: 'All 154 units, or those of one category. Public.',
    args: { category: t.arg.string({ required: false, description: 'Only the units of this category id.' }), lang: langArg(t) },
    resolve: (_, { category, lang }, ctx) => {
      const names = namesOf(ctx, lang);
      return listUnits(category).map((u) => named(u, names));
    },
  }),
  unit: t.field({
    ...policy({ access: 'public' }),
    type: UnitRef,
    nullable: true,
    description:
      'One unit, looked up by id (case-insensitive), symbol (case-sensitive) or alias, else by its name in the language asked for (`Kilometer pro Stunde` with `lang: "de"`). Public.',
    args: {
      id: t.arg.string({ required: true, description: 'Unit id, symbol, alias, or name in the language asked for (any case).' }),
      lang: langArg(t),
    },
    resolve: (_, { id, lang }, ctx) => {
      const names = namesOf(ctx, lang);
      return named(names.findUnit(id) ?? getUnit(id), names);
    },
  }),
  convert: convertField(
    t,
    'Converts a value between two units of one category, two currencies (the value, rate, publication and date explanation of `convertCurrency`, with `exchangeRate` as the rate), or two unit expressions of one dimension (currencies at the ECB rates), exactly. Needs an API key; `date` needs the Developer plan.',
  ),
  convertPost: convertField(
    t,
    'Same as `convert`; it backs POST /v1/convert (a REST route maps to exactly one field).',
    'Use `convert`: this field exists only to serve POST /v1/convert.',
  ),
}));
