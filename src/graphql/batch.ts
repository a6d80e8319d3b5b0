import { z } from 'zod';
import { BATCH_ITEM_KINDS, MAX_BATCH_ITEMS, type BatchItem } from '../domain/batch';
import type { BatchEntry, BatchOutcome } from '../services/batch-conversions';
import { RatesSourceEnum } from './currencies';
import { builder } from './builder';
import { listItems, policy } from './field-policy';
import { errorBody } from './error-body';
import { ErrorRef } from './errors';
import { CurrencyConversionRef, MINOR_UNITS_TEXT } from './currency';
import { ConversionRef, RoundingEnum, UNIT_TEXT } from './units';

const UNIT_TEXT_START = UNIT_TEXT.charAt(0).toLowerCase() + UNIT_TEXT.slice(1);

const BatchItemInput = builder.inputType('BatchItemInput', {
  description:
    'One conversion of a batch. When `from` and `to` are both currency codes it is a currency conversion, otherwise a unit conversion (units or unit expressions, as for `convert`). Values are checked per item: a bad value fails that item only.',
  fields: (t) => ({
    value: t.string({ required: true, description: 'A decimal string, as for `convert`.' }),
    from: t.string({ required: true, description: `A currency code, or ${UNIT_TEXT_START}` }),
    to: t.string({ required: true, description: `A currency code, or ${UNIT_TEXT_START}` }),
    decimals: t.int({ required: false, description: '0 to 40.' }),
    rounding: t.field({ type: RoundingEnum, required: false }),
    minorUnits: t.boolean({ required: false, description: MINOR_UNITS_TEXT }),
    date: t.string({
      required: false,
      description: 'YYYY-MM-DD: the rates of a currency item, or of the currencies in a unit expression (Developer plan and above).',
    }),
    source: t.field({
      type: RatesSourceEnum,
      required: false,
      description:
        'Where a currency occurs (a currency pair or a unit expression with currencies): the source whose figures to use (GET /v1/sources), as for `convert`.',
    }),
  }),
});

const ConversionResultRef = builder.unionType('ConversionResult', {
  description: 'A unit conversion or a currency conversion.',
  types: [ConversionRef, CurrencyConversionRef],
  // A unit conversion always has a category (and a rate too when an expression names currencies).
  resolveType: (value) => ('category' in value ? ConversionRef : CurrencyConversionRef),
});

const BatchItemKindEnum = builder.enumType('BatchItemKind', {
  description:
    'What an item was read as: `currency` when `from` and `to` are both currency codes (its `data` is a CurrencyConversion), else `unit` (a Conversion).',
  values: BATCH_ITEM_KINDS,
});

const BatchSuccessRef = builder.objectRef<Extract<BatchEntry, { ok: true }>>('BatchSuccess').implement({
  description: 'An item that converted.',
  fields: (t) => ({
    kind: t.field({
      type: BatchItemKindEnum,
      description: 'What `data` is: a Conversion (`unit`) or a CurrencyConversion (`currency`).',
      resolve: (e) => e.kind,
    }),
    data: t.field({ type: ConversionResultRef, resolve: (e) => e.data }),
  }),
});

const BatchFailureRef = builder.objectRef<Extract<BatchEntry, { ok: false }>>('BatchFailure').implement({
  description: 'An item that failed; it used no quota.',
  fields: (t) => ({
    kind: t.field({ type: BatchItemKindEnum, description: 'What the item was read as.', resolve: (e) => e.kind }),
    error: t.field({ type: ErrorRef, resolve: (e, _, ctx) => errorBody(e.error, e.requestId, ctx.requestContext.surface) }),
  }),
});

const BatchEntryRef = builder.unionType('BatchEntry', {
  description: 'The outcome of one item, in the order sent.',
  types: [BatchSuccessRef, BatchFailureRef],
  resolveType: (entry) => (entry.ok ? BatchSuccessRef : BatchFailureRef),
});

const BatchResultRef = builder.objectRef<BatchOutcome>('BatchResult').implement({
  fields: (t) => ({
    results: t.field({ ...listItems({ perItemOf: 'items' }), type: [BatchEntryRef], resolve: (b) => b.results }),
    succeeded: t.exposeInt('succeeded'),
    failed: t.exposeInt('failed'),
  }),
});

const itemsRule = z
  .array(z.any())
  .min(1, `items must hold 1 to ${MAX_BATCH_ITEMS} conversions.`)
  .max(MAX_BATCH_ITEMS, `items must hold 1 to ${MAX_BATCH_ITEMS} conversions.`);

builder.queryFields((t) => ({
  batch: t.field({
    ...policy({ access: 'key', conversions: { perItemOf: 'items' } }),
    type: BatchResultRef,
    nullable: true,
    description: `Up to ${MAX_BATCH_ITEMS} conversions in one call, each answered on its own. Needs an API key.`,
    args: {
      items: t.arg({ type: [BatchItemInput], required: true, validate: { schema: itemsRule } }),
    },
    resolve: async (_, { items }, ctx, info) =>
      ctx.services.conversions.batch(items as BatchItem[], await ctx.requestContext.caller(info.path.key as string)),
  }),
}));
