import type { Config } from '../config';
import { openSqliteStore } from './sqlite-store';
import type { AccountStore } from '../services/account-store';

/** The account store the configuration names (DATABASE_URL / DATA_DIR, contract section 1). */
export function openStore(config: Config): AccountStore {
  switch (config.database.kind) {
    case 'sqlite':
      return openSqliteStore(config.database.file);
    case 'postgres':
      throw new Error(
        'PostgreSQL backend is not available yet; unset DATABASE_URL (or point it at a SQLite file) to use SQLite under DATA_DIR.',
      );
  }
}
