import type { Migrations } from '../../../../platform/db/migrate.js';
import * as createIdentity from './2026-11-21T1000-create-identity.js';

/** Every migration of the identity schema, by sortable name. */
export const identityMigrations: Migrations = {
  '2026-11-21T1000-create-identity': createIdentity,
};
