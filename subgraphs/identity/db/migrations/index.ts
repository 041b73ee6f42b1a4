import type { Migrations } from '../../../../platform/db/migrate.js';
import * as createIdentity from './2026-11-21T1000-create-identity.js';
import * as entityNamesIgnoreCase from './2026-11-25T1000-entity-names-ignore-case.js';
import * as principalChangeFollowers from './2026-11-28T1000-principal-change-followers.js';
import * as projectDescription from './2026-11-28T1100-project-description.js';

/** Every migration of the identity schema, by sortable name. */
export const identityMigrations: Migrations = {
  '2026-11-21T1000-create-identity': createIdentity,
  '2026-11-25T1000-entity-names-ignore-case': entityNamesIgnoreCase,
  '2026-11-28T1000-principal-change-followers': principalChangeFollowers,
  '2026-11-28T1100-project-description': projectDescription,
};
