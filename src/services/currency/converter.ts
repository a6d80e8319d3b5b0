import { berlinDate } from '../../domain/calendar/berlin-time';
import { publishedCodeOn, shownEuroRates } from '../../domain/currency/legal-rate';
import { convertCurrency, lawAlone, type CurrencyConversion } from '../../domain/currency/convert';
import { parseCurrencyRequest, requireHistoryPlan, requireKnownCurrency, type CurrencyRequest } from '../../domain/currency/request';
import type { DateResolution } from '../../domain/currency/explain-date';
import type { PlanId } from '../../domain/plans';
import { DERIVED } from '../../domain/units/expression';
import type { ExpressionConversionAnswer } from '../expressions';
import { resolvePublication, type PublicationExplainer, type PublicationLoader } from './publication';
import type { RatesReader } from './rates';

/** A conversion whose rate says how the day asked for resolved to the publication used. */
export type ExplainedConversion = CurrencyConversion & { rate: CurrencyConversion['rate'] & { resolved: DateResolution } };

/** Converts an amount between two currencies at a publication's rates, uncharged (services/conversions.ts charges it). */
export interface CurrencyConverter {
  /** A currency conversion; `loader` batches the publication reads of one request. */
  convert(request: CurrencyRequest, plan: PlanId, loader: PublicationLoader): Promise<ExplainedConversion>;
  /**
   * The same conversion (same checks, value, rate, publication and explanation) in the shape of a unit
   * conversion whose units are currencies, as `convert` answers a unit expression with currencies.
   */
  convertAsUnits(request: CurrencyRequest, plan: PlanId, loader: PublicationLoader): Promise<ExpressionConversionAnswer>;
  /** How a conversion explains a publication's date and a currency it does not quote; unit expressions say the same. */
  readonly explainer: PublicationExplainer;
}

export function createCurrencyConverter(rates: RatesReader, clock: () => Date, explainer: PublicationExplainer): CurrencyConverter {
  /** The conversion, and what it was computed on (the publication, the day asked for), for either shape of answer. */
  const quote = async (request: CurrencyRequest, plan: PlanId, loader: PublicationLoader) => {
    const parsed = parseCurrencyRequest(request);
    requireHistoryPlan(parsed.date, plan);
    requireKnownCurrency(parsed.from, 'from', rates.knownCurrencies());
    requireKnownCurrency(parsed.to, 'to', rates.knownCurrencies());
    const publication = await resolvePublication(rates, clock, parsed.date, loader);
    // From the day the law replaced a currency, its successor's published rate is the one needed.
    const day = parsed.date ?? berlinDate(clock());
    await explainer.requireQuoted(publication, [
      [publishedCodeOn(parsed.from, day), 'from'],
      [publishedCodeOn(parsed.to, day), 'to'],
    ]);
    const conversion = convertCurrency(parsed, publication, day);
    // A rate on the law alone is the day asked's own: no publication is carried forward to it.
    const resolved: DateResolution = lawAlone(conversion.rate.source)
      ? { requested: day, publication: day, carriedForward: false }
      : explainer.resolution(parsed.date, publication);
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
        rate: {
          date: rate.date,
          source: rate.source,
          value: rate.value,
          rates: shownEuroRates(publication, [parsed.from, parsed.to], day),
          fixed: rate.fixed,
          resolved: rate.resolved,
        },
      };
    },

    explainer,
  };
}
