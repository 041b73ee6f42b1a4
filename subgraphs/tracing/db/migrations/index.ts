import type { Migrations } from '../../../../platform/db/migrate.js';
import * as createTracing from './2026-11-21T1000-create-tracing.js';
import * as createEventCursors from './2026-11-21T2130-create-event-cursors.js';
import * as feedbackHourlyRollup from './2026-11-21T2300-feedback-hourly-rollup.js';
import * as feedbackHourlyGroups from './2026-11-22T0000-feedback-hourly-groups.js';
import * as feedbackRatingCdf from './2026-11-22T0100-feedback-rating-cdf.js';
import * as renderedRollupMaps from './2026-11-22T0300-rendered-rollup-maps.js';
import * as projectSettings from './2026-11-28T0500-project-settings.js';
import * as callSearch from './2026-11-28T0600-call-search.js';
import * as callListOrder from './2026-11-28T0700-call-list-order.js';
import * as monitors from './2026-11-28T0700-monitors.js';
import * as monitorJudgeTokens from './2026-11-28T0730-monitor-judge-tokens.js';
import * as monitorThresholds from './2026-11-28T0740-monitor-thresholds.js';
import * as callErrors from './2026-11-28T0800-call-errors.js';
import * as datasetEvaluationRuns from './2026-11-28T0900-dataset-evaluation-runs.js';
import * as feedbackHourlyGrouped from './2026-11-28T1200-feedback-hourly-grouped.js';
import * as monitorCounts from './2026-11-28T1230-monitor-counts.js';

/** Every migration of the tracing schema, by sortable name. */
export const tracingMigrations: Migrations = {
  '2026-11-21T1000-create-tracing': createTracing,
  '2026-11-21T2130-create-event-cursors': createEventCursors,
  '2026-11-21T2300-feedback-hourly-rollup': feedbackHourlyRollup,
  '2026-11-22T0000-feedback-hourly-groups': feedbackHourlyGroups,
  '2026-11-22T0100-feedback-rating-cdf': feedbackRatingCdf,
  '2026-11-22T0300-rendered-rollup-maps': renderedRollupMaps,
  '2026-11-28T0500-project-settings': projectSettings,
  '2026-11-28T0600-call-search': callSearch,
  '2026-11-28T0700-call-list-order': callListOrder,
  '2026-11-28T0700-monitors': monitors,
  '2026-11-28T0730-monitor-judge-tokens': monitorJudgeTokens,
  '2026-11-28T0740-monitor-thresholds': monitorThresholds,
  '2026-11-28T0800-call-errors': callErrors,
  '2026-11-28T0900-dataset-evaluation-runs': datasetEvaluationRuns,
  '2026-11-28T1200-feedback-hourly-grouped': feedbackHourlyGrouped,
  '2026-11-28T1230-monitor-counts': monitorCounts,
};
