import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { createDatabase } from '../../platform/db/connection.js';

/**
 * A fresh database on the run's PostgreSQL server, so test files never see each other's rows: a copy of the run's
 * migrated template (every schema migrated, no rows of any tenant), or with `empty` a database with nothing in it —
 * for tests of the migrations themselves.
 */
export async function createTestDatabase(prefix = 't', options: { empty?: boolean } = {}): Promise<string> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  return createDatabase(inject('postgresUrl'), name, options.empty ? {} : { template: inject('templateDatabase') });
}
