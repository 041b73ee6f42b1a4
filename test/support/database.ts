import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { createDatabase } from '../../platform/db/connection.js';

/** A fresh, empty database on the run's PostgreSQL server, so test files never see each other's rows. */
export async function createTestDatabase(prefix = 't'): Promise<string> {
  return createDatabase(inject('postgresUrl'), `${prefix}_${randomBytes(6).toString('hex')}`);
}
