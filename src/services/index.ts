import type { Config } from '../config';
import type { AccountStore } from '../data/store';
import type { Principal } from '../http/auth';
import type { Logger } from 'pino';
import { authenticate } from '../http/auth';
import { createConversions, type Conversions } from './conversions';
import { createCurrency, type Currency } from './currency';
import { healthReport, type HealthReport } from './health';
import { createQuotaMeter, type QuotaMeter } from './quota';
import type { Metrics } from '../metrics';
import type { RatesReader } from './rates';

/** The application's services, built once by app.ts from explicit dependencies. */
export interface AppServices {
  readonly config: Config;
  readonly store: AccountStore;
  readonly conversions: Conversions;
  readonly currency: Currency;
  readonly rates: RatesReader;
  readonly quota: QuotaMeter;
  /** Checks an Authorization header; throws UNAUTHORIZED. */
  authenticate(authorization: string | null): Promise<Principal>;
  health(): HealthReport;
}

export interface ServiceDependencies {
  config: Config;
  store: AccountStore;
  rates: RatesReader;
  clock: () => Date;
  logger: Logger;
  /** Where quota refusals and refused keys are counted. */
  metrics?: Pick<Metrics, 'quotaRefused' | 'authFailed'>;
}

export function createServices({ config, store, rates, clock, logger, metrics }: ServiceDependencies): AppServices {
  const currency = createCurrency(rates, clock);
  const quota = createQuotaMeter(store, clock, (account, count) => metrics?.quotaRefused(account.plan, count));
  return {
    config,
    store,
    rates,
    currency,
    quota,
    conversions: createConversions({
      currency,
      quota,
      clock,
      onUnexpected: (error, requestId) => logger.error({ err: error, requestId }, 'unexpected error in batch item'),
    }),
    authenticate: (authorization) =>
      authenticate(authorization, store, config.apiEnv).catch((error: unknown) => {
        metrics?.authFailed(authorization?.trim() ? 'invalid' : 'missing');
        throw error;
      }),
    health: () => healthReport(rates),
  };
}
