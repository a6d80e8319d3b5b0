import type { HealthReport } from '../services/health';
import { builder } from './builder';
import { SOURCE_IDS } from '../domain/sources/types';
import { listItems, policy } from './field-policy';

const RatesHealthRef = builder.objectRef<HealthReport['rates']>('RatesHealth').implement({
  description: 'State of the ECB reference rates.',
  fields: (t) => ({
    date: t.field({
      type: 'Date',
      nullable: true,
      description: 'Newest publication held; null while none is loaded.',
      resolve: (r) => r.date,
    }),
    fetchedAt: t.string({ nullable: true, description: 'When rates were last fetched (ISO 8601).', resolve: (r) => r.fetchedAt }),
    stale: t.exposeBoolean('stale', {
      description: 'True when a newer publication is overdue (past its 16:00 Europe/Berlin plus two hours) or none is loaded.',
    }),
    missingPublications: t.int({
      nullable: true,
      description: 'Publications the ECB calendar expected by now (their 16:00 passed) that are not held; null while none is loaded.',
      resolve: (r) => r.missingPublications,
    }),
    lastError: t.string({ nullable: true, description: 'The last fetch error, if the last fetch failed.', resolve: (r) => r.lastError }),
  }),
});

const SourceHealthRef = builder.objectRef<HealthReport['sources'][number]>('SourceHealth').implement({
  description: 'Freshness of one rate source besides the ECB (RATE_SOURCES).',
  fields: (t) => ({
    source: t.exposeString('source', { description: 'The source id (boc, nb, cnb, nbp, cbr, boi, imf, nbu).' }),
    lastPublication: t.field({
      type: 'Date',
      nullable: true,
      description: 'Newest publication day held (of any of its tables); null while none is held.',
      resolve: (s) => s.lastPublication,
    }),
    fetchedAt: t.string({
      nullable: true,
      description: 'When the source was last fetched or imported successfully (ISO 8601).',
      resolve: (s) => s.fetchedAt,
    }),
    expectedNext: t.string({
      nullable: true,
      description: "When its next publication is due by the publisher's schedule (ISO 8601); null while none is held.",
      resolve: (s) => s.expectedNext,
    }),
    stale: t.exposeBoolean('stale', {
      description:
        'True when a publication is overdue by the schedule (two hours past due), none is held, or its last response no longer parsed.',
    }),
    lastError: t.string({
      nullable: true,
      description: 'The last fetch or parse error, until a fetch succeeds again.',
      resolve: (s) => s.lastError,
    }),
  }),
});

const DatabaseKindEnum = builder.enumType('DatabaseKind', { values: ['sqlite', 'postgres'] as const });

const DatabaseHealthRef = builder.objectRef<NonNullable<HealthReport['database']>>('DatabaseHealth').implement({
  description: 'State of the account database (API keys, quota, sessions).',
  fields: (t) => ({
    kind: t.field({ type: DatabaseKindEnum, resolve: (d) => d.kind }),
    reachable: t.exposeBoolean('reachable', {
      description: 'False while the database cannot be reached: keyed routes answer 503 SERVICE_UNAVAILABLE until it is back.',
    }),
  }),
});

const HealthStatusEnum = builder.enumType('HealthStatus', { values: ['ok', 'degraded'] as const });

const RateLimitStoreEnum = builder.enumType('RateLimitStore', {
  description: 'Where request rate limits are counted.',
  values: {
    redis: { description: 'In Redis, shared by every instance.' },
    memory: { description: "In this instance's memory: no REDIS_URL, or Redis is down (then health is degraded)." },
  } as const,
});

const HealthRef = builder.objectRef<HealthReport>('Health').implement({
  fields: (t) => ({
    status: t.field({ type: HealthStatusEnum, resolve: (h) => h.status }),
    version: t.exposeString('version'),
    rates: t.field({ type: RatesHealthRef, resolve: (h) => h.rates }),
    sources: t.field({
      ...listItems(SOURCE_IDS.length),
      type: [SourceHealthRef],
      description: "Each enabled rate source besides the ECB, in the catalogue's order; they never change `status`.",
      resolve: (h) => h.sources,
    }),
    rateLimits: t.field({ type: RateLimitStoreEnum, resolve: (h) => h.rateLimits }),
    database: t.field({
      type: DatabaseHealthRef,
      nullable: true,
      description: 'The account database; null when not reported.',
      resolve: (h) => h.database ?? null,
    }),
  }),
});

builder.queryFields((t) => ({
  health: t.field({
    ...policy({ access: 'public' }),
    type: HealthRef,
    nullable: true,
    description:
      'Whether the service is fully working. Public. `degraded` means units work but currency rates are missing or stale, Redis is configured but down, or the account database is unreachable.',
    resolve: (_, __, ctx) => ctx.services.health(),
  }),
}));
