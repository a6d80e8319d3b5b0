import type { DailyUsage } from '../services/account-store';
import type { UsageReport } from '../services/usage';
import { builder } from './builder';
import { listItems, policy } from './field-policy';

const QuotaUsageRef = builder.objectRef<UsageReport['quota']>('QuotaUsage').implement({
  description: "This UTC month's conversion quota of the key's account.",
  fields: (t) => ({
    limit: t.exposeInt('limit', { description: 'Conversions the plan allows per UTC month.' }),
    used: t.exposeInt('used', { description: 'Conversions delivered this month.' }),
    remaining: t.exposeInt('remaining', { description: 'Conversions left this month.' }),
    reset: t.exposeString('reset', { description: 'When the quota starts again: 00:00 UTC on the 1st of next month (ISO 8601).' }),
  }),
});

const DailyUsageRef = builder.objectRef<DailyUsage>('DailyUsage').implement({
  description: "One UTC day of the key's account.",
  fields: (t) => ({
    day: t.field({ type: 'Date', resolve: (d) => d.day }),
    delivered: t.exposeInt('delivered', {
      description: 'Conversions delivered (and charged to the quota); a failed conversion is not counted.',
    }),
    refusedQuota: t.exposeInt('refusedQuota', {
      description:
        'Requests refused because the monthly quota was used up (each refused field of a GraphQL document; a batch with refused items once).',
    }),
    refusedRate: t.exposeInt('refusedRate', { description: "Requests refused by the key's request rate limit." }),
  }),
});

const UsageRef = builder.objectRef<UsageReport>('Usage').implement({
  fields: (t) => ({
    quota: t.field({ type: QuotaUsageRef, resolve: (u) => u.quota }),
    days: t.field({
      ...listItems(31),
      type: [DailyUsageRef],
      description: 'The last 31 UTC days, oldest first, today last; days without use count zeros.',
      resolve: (u) => u.days,
    }),
  }),
});

builder.queryFields((t) => ({
  usage: t.field({
    ...policy({ access: 'key' }),
    type: UsageRef,
    nullable: true,
    description:
      "The key's account: this month's quota and the last 31 UTC days (conversions delivered, refused for the quota, refused by the rate limit). Needs an API key; uses no quota.",
    resolve: async (_, __, ctx) => ctx.services.usage((await ctx.requestContext.caller()).principal.account),
  }),
}));
