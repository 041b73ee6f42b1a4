import type { Migrations } from '../../../../platform/db/migrate.js';
import * as createAutomations from './2026-11-21T1000-create-automations.js';

/** Every migration of the automations schema, by sortable name. */
export const automationsMigrations: Migrations = {
  '2026-11-21T1000-create-automations': createAutomations,
};
