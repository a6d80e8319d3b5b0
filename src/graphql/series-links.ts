import { DEFAULT_LINK_SECONDS, MAX_LINK_SECONDS, MIN_LINK_SECONDS } from '../domain/signed-links';
import { LINK_FORMATS, SIGNED_EXPORT_PATH, type LinkFormat, type SeriesLink } from '../services/series-links';
import { RatesSourceEnum } from './currencies';
import { builder } from './builder';
import { SERIES_SOURCE_TEXT } from './currency-series';
import { policy } from './field-policy';
import { decimalsRule, RoundingEnum } from './units';

const SeriesLinkFormatEnum = builder.enumType('SeriesLinkFormat', {
  description: 'The media type a signed link answers in, whatever the Accept header: csv (text/csv) or ndjson (application/x-ndjson).',
  values: Object.keys(LINK_FORMATS) as LinkFormat[],
});

const RateSeriesLinkRef = builder.objectRef<SeriesLink>('RateSeriesLink').implement({
  description: 'A signed link to one series export: a GET of `url` needs no Authorization header until `expiresAt`.',
  fields: (t) => ({
    url: t.exposeString('url', {
      description: `The URL of the export (${SIGNED_EXPORT_PATH}?…&keyId=…&expires=…&signature=…): absolute on the server's PUBLIC_ORIGIN (or, without it, on a loopback origin the request came to), else the path and query relative to the server's origin. Any change to it makes it invalid.`,
    }),
    expiresAt: t.exposeString('expiresAt', {
      description: 'When the link stops working (ISO 8601, UTC): never after the key that made it ends.',
    }),
    format: t.field({ type: SeriesLinkFormatEnum, resolve: (link) => link.format }),
    keyId: t.exposeString('keyId', {
      description: 'The id of the key that made the link: its rate limit and plan apply, and revoking it ends the link.',
    }),
  }),
});

builder.queryFields((t) => ({
  rateSeriesLink: t.field({
    ...policy({ access: 'key' }),
    type: RateSeriesLinkRef,
    nullable: true,
    description: `A signed link to a rateSeries export in CSV or NDJSON, for a client that cannot send a key (a spreadsheet's "from web"): the URL opens the export the key would get (same body, ETag and 304, Content-Disposition) with no Authorization header, until it expires (${DEFAULT_LINK_SECONDS / 3600} h by default, at most ${MAX_LINK_SECONDS / 86_400} days). The key is never in the link: it names the key's id and is signed with a server secret. The key must still be valid when the link is used (a revoked, rotated-out or expired key ends its links at once), and its plan (Developer) and rate limit apply. Making a link stores nothing and uses no quota; its parameters are checked as the export checks them. Without end, each fetch reaches the newest publication.`,
    args: {
      start: t.arg({ type: 'Date', required: true, description: 'First day of the range.' }),
      end: t.arg({
        type: 'Date',
        required: false,
        description: 'Last day of the range; without it, the newest publication held when the link is fetched.',
      }),
      base: t.arg.string({ required: false, description: 'Currency code the rates are expressed against; EUR by default.' }),
      symbols: t.arg.stringList({
        required: false,
        description: 'Currency codes to list, in this order (default: every currency quoted in the range).',
      }),
      group: t.arg.string({ required: false, description: '"day" (default), "week" (ISO), "month", "quarter" or "year".' }),
      decimals: t.arg.int({
        required: false,
        validate: { schema: decimalsRule },
        description: 'Round each rate once to this many places (0 to 40), as rateSeries does.',
      }),
      rounding: t.arg({ type: RoundingEnum, required: false, description: 'Rounding mode used with `decimals`; HALF_UP by default.' }),
      source: t.arg({ type: RatesSourceEnum, required: false, description: SERIES_SOURCE_TEXT }),
      format: t.arg({ type: SeriesLinkFormatEnum, required: false, description: "The export's media type; csv by default." }),
      expiresIn: t.arg.int({
        required: false,
        description: `Seconds the link works for, from ${MIN_LINK_SECONDS} to ${MAX_LINK_SECONDS} (7 days); ${DEFAULT_LINK_SECONDS} (a day) by default. A key with an earlier end ends the link then.`,
      }),
    },
    resolve: async (_, args, ctx) =>
      ctx.services.seriesLinks.make(args, (await ctx.requestContext.caller()).principal, ctx.requestContext.host),
  }),
}));
