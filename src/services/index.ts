import type { Config } from '../config';
import type { AccountStore } from '../data/store';
import type { Principal } from '../http/auth';
import type { Conversions } from './conversions';
import type { HealthReport } from './health';

/** The application's services, built once by app.ts from explicit dependencies. */
export interface AppServices {
  readonly config: Config;
  readonly store: AccountStore;
  readonly conversions: Conversions;
  /** Checks an Authorization header; throws UNAUTHORIZED. */
  authenticate(authorization: string | null): Promise<Principal>;
  health(): HealthReport;
}
