import type { SourceListing, SourceTableListing } from '../services/currency/sources-listing';
import { builder } from './builder';
import { RatesSourceEnum } from './currencies';
import { SOURCE_IDS } from '../domain/sources/types';
import { listItems, policy } from './field-policy';

const SourceTableRef = builder.objectRef<SourceTableListing>('SourceTable').implement({
  description: 'One table of a source, with its own schedule (NBP publishes table A daily and table B weekly).',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'The table ("" for a source with one).' }),
    base: t.exposeString('base', { description: 'The currency its figures are priced against.' }),
    schedule: t.exposeString('schedule', { description: "When it publishes, in the publisher's words." }),
    timeZone: t.exposeString('timeZone', { description: "The publisher's time zone (IANA)." }),
    dueBy: t.exposeString('dueBy', { description: 'Local time (HH:MM) each publication is due by.' }),
    lastPublication: t.field({ type: 'Date', nullable: true, resolve: (s) => s.lastPublication }),
    expectedNext: t.field({
      type: 'Date',
      nullable: true,
      description: 'The day of the next publication expected.',
      resolve: (s) => s.expectedNext,
    }),
    stale: t.exposeBoolean('stale', { description: 'True when its next publication is more than two hours overdue, or none is held.' }),
  }),
});

const SourceRef = builder.objectRef<SourceListing>('Source').implement({
  description:
    'A publisher of official rates this instance serves. Each figure served is one of its publications, exactly as published; none is ever averaged with another.',
  fields: (t) => ({
    id: t.field({ type: RatesSourceEnum, resolve: (s) => s.id }),
    publisher: t.exposeString('publisher'),
    base: t.exposeString('base', { description: 'The currency its main table prices against.' }),
    terms: t.exposeString('terms', { description: "The publisher's terms of use: check them before relying on a source commercially." }),
    home: t.exposeString('home', { description: "The publisher's page for these rates." }),
    currencies: t.exposeInt('currencies', { description: 'Currencies its newest publications carry, its base included.' }),
    firstPublication: t.field({ type: 'Date', nullable: true, resolve: (s) => s.firstPublication }),
    lastPublication: t.field({ type: 'Date', nullable: true, resolve: (s) => s.lastPublication }),
    stale: t.exposeBoolean('stale', { description: 'True when a table is behind its schedule or the last fetch failed.' }),
    fetchedAt: t.exposeString('fetchedAt', {
      nullable: true,
      description: 'When it was last fetched or imported (ISO 8601); null when never by this deployment.',
    }),
    lastError: t.exposeString('lastError', { nullable: true, description: 'The last fetch error, until a fetch succeeds.' }),
    tables: t.field({ ...listItems(2), type: [SourceTableRef], resolve: (s) => s.tables }),
  }),
});

builder.queryFields((t) => ({
  sources: t.field({
    ...policy({ access: 'public', items: SOURCE_IDS.length }),
    type: [SourceRef],
    nullable: true,
    description:
      'Every rate source this instance serves, in the order a conversion without `source` tries them, with its freshness. Public.',
    resolve: (_, __, ctx) => ctx.services.listSources(),
  }),
}));
