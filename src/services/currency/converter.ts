import { berlinDate } from '../../domain/calendar/berlin-time';
import { publishedCodeOn, shownEuroRates } from '../../domain/currency/legal-rate';
import { convertCurrency, lawAlone, type CurrencyConversion } from '../../domain/currency/convert';
import { CURRENCY_CODES } from '../../domain/currency/codes';
import {
  parseCurrencyRequest,
  requireHistoryPlan,
  requireKnownCurrency,
  type CurrencyRequest,
  type ParsedCurrencyRequest,
} from '../../domain/currency/request';
import { ApiError } from '../../domain/errors';
import type { DateResolution } from '../../domain/currency/explain-date';
import type { PlanId } from '../../domain/plans';
import { DERIVED } from '../../domain/units/expression';
import type { ExpressionConversionAnswer } from '../expressions';
import { resolvePublication, type PublicationExplainer, type PublicationLoader } from './publication';
import type { RatesReader } from './rates';
import { ECB_ONLY, parseSource, sourceCodes, type HeldSources } from './held-sources';
import {
  noRoute,
  priceOnSources,
  quoteFromSources,
  quotingSources,
  type ExpressionSources,
  type SourceConversion,
  type SourceQuoteDeps,
} from './source-quote';

/** A conversion whose rate says how the day asked for resolved to the publication used. */
export type ExplainedConversion =
  | (CurrencyConversion & { rate: CurrencyConversion['rate'] & { resolved: DateResolution } })
  | SourceConversion;

/** A currency conversion's inputs, and the source whose figures to use (absent: the contract's order). */
export type SourcedCurrencyRequest = CurrencyRequest & { source?: unknown };

/** Converts an amount between two currencies at a publication's rates, uncharged (services/conversions.ts charges it). */
export interface CurrencyConverter {
  /** A currency conversion; `loader` batches the publication reads of one request. */
  convert(request: SourcedCurrencyRequest, plan: PlanId, loader: PublicationLoader): Promise<ExplainedConversion>;
  /**
   * The same conversion (same checks, value, rate, publication and explanation) in the shape of a unit
   * conversion whose units are currencies, as `convert` answers a unit expression with currencies.
   */
  convertAsUnits(request: SourcedCurrencyRequest, plan: PlanId, loader: PublicationLoader): Promise<ExpressionConversionAnswer>;
  /** How a conversion explains a publication's date and a currency it does not quote; unit expressions say the same. */
  readonly explainer: PublicationExplainer;
  /** What a unit expression with currencies needs of the sources, so it chooses them as a conversion does. */
  readonly sources: ExpressionSources;
}

/**
 * A currency conversion in the unit conversion's shape: `rates` the ECB's euro rates shown (none on
 * another source's figures, which come as `figures` and `legs` instead).
 */
function asUnits(conversion: ExplainedConversion, rates: Record<string, string>): ExpressionConversionAnswer {
  const { rate } = conversion;
  const sourced = 'figures' in rate ? rate : undefined;
  return {
    input: conversion.input,
    result: conversion.result,
    category: DERIVED,
    rate: {
      date: rate.date,
      source: rate.source,
      value: rate.value,
      rates,
      fixed: rate.fixed,
      resolved: rate.resolved,
      ...(sourced ? { figures: sourced.figures } : {}),
      ...(sourced?.legs ? { legs: sourced.legs } : {}),
    },
  };
}

/** Whether the ECB path can price the code at all: a code it has quoted or the law replaced. */
const ecbKnows = (rates: RatesReader, code: string): boolean => CURRENCY_CODES.has(code) || rates.knownCurrencies().has(code);

/** The conversion on the ECB's publication, and what it was computed on (the publication, the day asked for). */
function ecbQuote(rates: RatesReader, clock: () => Date, explainer: PublicationExplainer) {
  return async (parsed: ParsedCurrencyRequest, loader: PublicationLoader) => {
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
}

const asked = (parsed: ParsedCurrencyRequest) => (parsed.date === undefined ? 'in their latest publications' : `on ${parsed.date}`);

/**
 * Without `source` (or with `ecb`): the ECB's answer when it prices the pair, so every ECB answer
 * stays as it is; else, without `source`, the sources' route; else the ECB's refusal, naming the
 * sources that quote the pair.
 */
function anySourceQuote(deps: SourceQuoteDeps, quoteEcb: ReturnType<typeof ecbQuote>) {
  return async (parsed: ParsedCurrencyRequest, source: 'ecb' | undefined, loader: PublicationLoader) => {
    if (ecbKnows(deps.rates, parsed.from) && ecbKnows(deps.rates, parsed.to)) {
      try {
        return await quoteEcb(parsed, loader);
      } catch (error) {
        if (!(error instanceof ApiError) || error.code !== 'RATE_NOT_FOUND' || deps.held.enabled().length === 1) throw error;
        const sourced = source === 'ecb' ? undefined : await quoteFromSources(deps, parsed, loader);
        if (sourced) return { parsed, conversion: sourced };
        const quoting = await quotingSources(deps, parsed, loader);
        if (quoting.length === 0) throw error;
        throw new ApiError(
          'RATE_NOT_FOUND',
          `${error.message} Sources that quote both ${asked(parsed)}: ${quoting.join(', ')}.`,
          error.details,
        );
      }
    }
    if (source === 'ecb') throw noRoute(parsed.from, parsed.to, parsed.date, await quotingSources(deps, parsed, loader), 'ecb');
    const sourced = await quoteFromSources(deps, parsed, loader);
    if (!sourced) throw noRoute(parsed.from, parsed.to, parsed.date, []);
    return { parsed, conversion: sourced };
  };
}

/** The codes a conversion may name: the ECB's and every source's, one set per pair of their identities. */
function knownCodes(rates: RatesReader, held: HeldSources): () => ReadonlySet<string> {
  let cached: { ecb: ReadonlySet<string>; sources: ReadonlySet<string>; all: ReadonlySet<string> } | undefined;
  return () => {
    const ecb = rates.knownCurrencies();
    const sources = sourceCodes(held.history());
    if (sources.size === 0) return ecb;
    if (cached?.ecb !== ecb || cached.sources !== sources) cached = { ecb, sources, all: new Set([...ecb, ...sources]) };
    return cached.all;
  };
}

export function createCurrencyConverter(
  rates: RatesReader,
  clock: () => Date,
  explainer: PublicationExplainer,
  held: HeldSources = ECB_ONLY,
): CurrencyConverter {
  const deps: SourceQuoteDeps = { rates, held, clock };
  const quoteAny = anySourceQuote(deps, ecbQuote(rates, clock, explainer));
  const known = knownCodes(rates, held);

  /** The conversion, and what it was computed on, for either shape of answer. */
  const quote = async (request: SourcedCurrencyRequest, plan: PlanId, loader: PublicationLoader) => {
    const parsed = parseCurrencyRequest(request);
    const source = parseSource(request.source, held);
    requireHistoryPlan(parsed.date, plan);
    requireKnownCurrency(parsed.from, 'from', known());
    requireKnownCurrency(parsed.to, 'to', known());
    if (source === undefined || source === 'ecb') return quoteAny(parsed, source, loader);
    const sourced = await quoteFromSources(deps, parsed, loader, source);
    if (!sourced) throw noRoute(parsed.from, parsed.to, parsed.date, await quotingSources(deps, parsed, loader), source);
    return { parsed, conversion: sourced };
  };

  return {
    async convert(request, plan, loader) {
      return (await quote(request, plan, loader)).conversion;
    },

    async convertAsUnits(request, plan, loader) {
      const quoted = await quote(request, plan, loader);
      if (!('publication' in quoted)) return asUnits(quoted.conversion, {});
      const { parsed, publication, day, conversion } = quoted;
      return asUnits(conversion, shownEuroRates(publication, [parsed.from, parsed.to], day));
    },

    explainer,

    sources: {
      known,
      parse: (value) => parseSource(value, held),
      others: () => held.enabled().length > 1,
      price: (codes, date, loader, only) => priceOnSources(deps, codes, date, loader, only),
    },
  };
}
