import type { FigureUsed, LegUsed } from '../domain/sources/answer';
import type { ObjectRef } from '@pothos/core';
import { builder } from './builder';
import { listItems } from './field-policy';
import { DateResolutionRef, RatesSourceEnum } from './currencies';
import { REST_OMITS_NULL } from './serialize';

export const PublishedFigureRef = builder.objectRef<FigureUsed>('PublishedFigure').implement({
  description: 'One figure of one publication, exactly as its publisher published it (decimal text, never through a float).',
  fields: (t) => ({
    source: t.field({ type: RatesSourceEnum, resolve: (f) => f.source }),
    table: t.exposeString('table', {
      description: 'The publisher\'s table ("A" or "B" for NBP, "representative" or "sdr" for the IMF); "" for a source with one.',
    }),
    date: t.field({ type: 'Date', description: "The publication's day.", resolve: (f) => f.date }),
    base: t.exposeString('base', { description: 'The currency the publication prices against.' }),
    currency: t.exposeString('currency', { description: 'The currency this figure prices.' }),
    value: t.field({
      type: 'Decimal',
      description: 'The figure as published (a decimal comma written as a point).',
      resolve: (f) => f.value,
    }),
    units: t.field({
      type: 'Decimal',
      description: 'How many units the figure prices, as published (1, 10, 100, 1000).',
      resolve: (f) => f.units,
    }),
    direction: t.exposeString('direction', {
      description:
        '"base-per-units": `units` of the currency cost `value` of the base (CAD per USD, CZK per 100 JPY); "units-per-base": `units` of the base cost `value` of the currency (the ECB per euro, the IMF per US dollar).',
    }),
    resolved: t.field({
      type: DateResolutionRef,
      description: 'How the day asked resolved to this publication.',
      resolve: (f) => f.resolved,
    }),
  }),
});

export const RateLegRef = builder.objectRef<LegUsed>('RateLeg').implement({
  description: "One source's step of a conversion through two sources, joined through a currency both quote.",
  fields: (t) => ({
    source: t.field({ type: RatesSourceEnum, resolve: (l) => l.source }),
    from: t.exposeString('from'),
    to: t.exposeString('to'),
    value: t.field({ type: 'Decimal', description: "Units of `to` per one `from` on this source's figures.", resolve: (l) => l.value }),
    figures: t.field({ ...listItems(2), type: [PublishedFigureRef], resolve: (l) => l.figures }),
  }),
});

type BuilderTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer Types> ? Types : never;
type SourcedRate = { figures?: readonly FigureUsed[] | undefined; legs?: readonly LegUsed[] | undefined };

/** Adds `figures` and `legs` to a rate type: null (and left out of REST answers) on the ECB's own rates, so those answers stay as they are. */
export function addSourceRateFields<T extends SourcedRate>(ref: ObjectRef<BuilderTypes, T>): void {
  builder.objectFields(ref, (t) => ({
    figures: t.field({
      type: [PublishedFigureRef],
      nullable: true,
      description:
        "The published figures used, when a source other than the ECB priced the rate; null (left out of REST answers) on the ECB's rates.",
      resolve: (r) => r.figures ?? null,
      extensions: { [REST_OMITS_NULL]: true, ...listItems(4).extensions },
    }),
    legs: t.field({
      type: [RateLegRef],
      nullable: true,
      description: "Each source's step when two sources were joined; null (left out of REST answers) otherwise.",
      resolve: (r) => r.legs ?? null,
      extensions: { [REST_OMITS_NULL]: true, ...listItems(2).extensions },
    }),
  }));
}
