import type { Migrations } from '../../../../platform/db/migrate.js';
import * as createRegistry from './2026-11-21T1000-create-registry.js';
import * as createEventCursors from './2026-11-21T2200-create-event-cursors.js';

/** Every migration of the registry schema, by sortable name. */
export const registryMigrations: Migrations = {
  '2026-11-21T1000-create-registry': createRegistry,
  '2026-11-21T2200-create-event-cursors': createEventCursors,
};
