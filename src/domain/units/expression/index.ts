/** Unit expressions: products and quotients of catalogue units and currency codes. Pure. */
export { cachedExpressions, EXPRESSION_CACHE_SIZE, LruCache, parseExpression } from './cache';
export { canonicalName, DERIVED, type CompiledExpression, type Compound, type WholeUnit } from './compile';
export {
  conversionAnswer,
  convertExpressionExact,
  convertLinearExpressions,
  convertUnitExpressions,
  currenciesOf,
  requireSameDimension,
  type ExactExpressionConversion,
  type ExpressionConversion,
  type ExpressionConversionRequest,
  type ExpressionOptions,
  type RateOf,
} from './convert';
export { MAX_EXPONENT, MAX_EXPRESSION_LENGTH, MAX_FACTORS } from './limits';
export { resolveExpression, type IsCurrency } from './resolve';
export { suggestUnits } from './suggest';
