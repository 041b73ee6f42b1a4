import type { Migrations } from '../../../../platform/db/migrate.js';
import * as createTraining from './2026-11-21T1000-create-training.js';
import * as checkpointsLogsJobs from './2026-11-21T1100-checkpoints-logs-jobs.js';
import * as remoteAssignments from './2026-11-21T1200-remote-assignments.js';
import * as jobDatasets from './2026-11-21T2300-job-datasets.js';
import * as checkpointAliases from './2026-11-28T0710-checkpoint-aliases.js';

/** Every migration of the training schema, by sortable name. */
export const trainingMigrations: Migrations = {
  '2026-11-21T1000-create-training': createTraining,
  '2026-11-21T1100-checkpoints-logs-jobs': checkpointsLogsJobs,
  '2026-11-21T1200-remote-assignments': remoteAssignments,
  '2026-11-21T2300-job-datasets': jobDatasets,
  '2026-11-28T0710-checkpoint-aliases': checkpointAliases,
};
