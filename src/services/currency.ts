import { berlinDate } from '../domain/calendar/berlin-time';
import { publishedCodeOn, shownEuroRates } from '../domain/currency/legal-rate';
import { convertCurrency, listRates, type CurrencyConversion, type RatesListing } from '../domain/currency/convert';
import { parseCurrencyRequest, requireHistoryPlan, requireKnownCurrency, type CurrencyRequest } from '../domain/currency/request';
import type { Publication } from '../domain/ecb';
import type { PlanId } from '../domain/plans';
import { createPublicationExplainer, ratesUnavailable, resolvePublication, type PublicationExplainer, type PublicationLoader } from './publication';
import type { RatesReader } from './rates';
import type { ExpressionConversionAnswer } from './expressions';
import { DERIVED } from '../domain/units/expression';
import type { HistoryFacts } from './currency-history';
import { memoizedLatestExplanation, type DateResolution, type NextPublication } from '../domain/currency/explain-date';

/** The latest listing, with how today resolved to it and when the next publication is expected. */
export type LatestRates = RatesListing & { resolved: DateResolution; nextPublication: NextPublication };

/** A conversion whose rate says how the day asked for resolved to the publication used. */
export type ExplainedConversion = CurrencyConversion & { rate: CurrencyConversion['rate'] & { resolved: DateResolution } };


export interface Currency {
  /** A currency conversion; `loader` batches the publication reads of one request. */
  convert(request: CurrencyRequest, plan: PlanId, loader: PublicationLoader): Promise<ExplainedConversion>;
  /**
   * The same conversion (same checks, value, rate, publication and explanation) in the shape of a unit
   * conversion whose units are currencies, as `convert` answers a unit expression with currencies.
   */
  convertAsUnits(request: CurrencyRequest, plan: PlanId, loader: PublicationLoader): Promise<ExpressionConversionAnswer>;
  latest(): LatestRates;
  /** How this service explains a publication's date and a currency it does not quote; unit expressions say the same. */
  explainer: PublicationExplainer;
}

export { RATES_RETRY_AFTER_SECONDS } from './publication';

/**
 * `facts` (the quote spans of the whole history, services/currency-history.ts) lets a RATE_NOT_FOUND
 * say when the currency was last quoted and the fixed rate to use; without it the message is plain.
 */
export function createCurrency(rates: RatesReader, clock: () => Date, facts?: () => Promise<HistoryFacts>): Currency {
  const publicationFor = (date: string | undefined, loader: PublicationLoader): Promise<Publication> =>
    resolvePublication(rates, clock, date, loader);

  const explainer = createPublicationExplainer(rates, clock, facts);
  const latestExplanation = memoizedLatestExplanation();

  /** The conversion, and what it was computed on (the publication, the day asked for), for either shape of answer. */
  const quote = async (request: CurrencyRequest, plan: PlanId, loader: PublicationLoader) => {
    const parsed = parseCurrencyRequest(request);
    requireHistoryPlan(parsed.date, plan);
    requireKnownCurrency(parsed.from, 'from', rates.knownCurrencies());
    requireKnownCurrency(parsed.to, 'to', rates.knownCurrencies());
    const publication = await publicationFor(parsed.date, loader);
    // From the day the law replaced a currency, its successor's published rate is the one needed.
    const day = parsed.date ?? berlinDate(clock());
    await explainer.requireQuoted(publication, [[publishedCodeOn(parsed.from, day), 'from'], [publishedCodeOn(parsed.to, day), 'to']]);
    const conversion = convertCurrency(parsed, publication, day);
    const resolved = explainer.resolution(parsed.date, publication);
    return { parsed, publication, day, conversion: { ...conversion, rate: { ...conversion.rate, resolved } } };
  };

  return {
    async convert(request, plan, loader) {
      return (await quote(request, plan, loader)).conversion;
    },

    async convertAsUnits(request, plan, loader) {
      const { parsed, publication, day, conversion } = await quote(request, plan, loader);
      const { rate } = conversion;
      return {
        input: conversion.input,
        result: conversion.result,
        category: DERIVED,
        rate: { date: rate.date, source: rate.source, value: rate.value, rates: shownEuroRates(publication, [parsed.from, parsed.to], day), fixed: rate.fixed, resolved: rate.resolved },
      };
    },

    latest() {
      const latest = rates.latest();
      if (!latest) throw ratesUnavailable();
      return { ...listRates(latest), ...latestExplanation(latest.date, clock()) };
    },

    explainer,
  };
}
