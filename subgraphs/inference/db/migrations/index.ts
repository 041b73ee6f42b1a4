import type { Migrations } from '../../../../platform/db/migrate.js';
import * as createInference from './2026-11-21T1000-create-inference.js';
import * as createEventCursors from './2026-11-22T1000-create-event-cursors.js';
import * as usageRecordsByTime from './2026-11-28T0500-usage-records-by-time.js';

/** Every migration of the inference schema, by sortable name. */
export const inferenceMigrations: Migrations = {
  '2026-11-21T1000-create-inference': createInference,
  '2026-11-22T1000-create-event-cursors': createEventCursors,
  '2026-11-28T0500-usage-records-by-time': usageRecordsByTime,
};
