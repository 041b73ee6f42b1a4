import type { Migrations } from '../../../../platform/db/migrate.js';
import * as createAutomations from './2026-11-21T1000-create-automations.js';
import * as deliveriesTeamLog from './2026-11-25T1000-deliveries-team-log.js';

/** Every migration of the automations schema, by sortable name. */
export const automationsMigrations: Migrations = {
  '2026-11-21T1000-create-automations': createAutomations,
  '2026-11-25T1000-deliveries-team-log': deliveriesTeamLog,
};
