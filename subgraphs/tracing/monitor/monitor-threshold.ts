import type { Transaction } from 'kysely';
import { MONITOR_SCORE_DROP_EVENT, type MonitorScoreDropPayload } from '../../../platform/events/contracts.js';
import { publishEvent } from '../../../platform/events/index.js';
import type { TracingDatabase } from '../db/database.js';
import { parseProjectId } from '../refs.js';
import type { MonitorDefinition } from './monitor-definition.js';
import { monitorStore } from './monitor.store.js';

/**
 * After scores are recorded (in that transaction): for each monitor with a threshold, whether its mean score over
 * the window, with at least its minimum of samples, is below the threshold now. Crossing it publishes one
 * MONITOR_SCORE_DROP platform event (what automations turn into a webhook); the monitor stays crossed — no further
 * event — until the mean is back at the threshold or above (or too few samples are left in the window).
 */
export async function checkThresholds(trx: Transaction<TracingDatabase>, monitors: MonitorDefinition[]): Promise<void> {
  for (const monitor of monitors) {
    const threshold = monitor.threshold;
    if (!threshold) continue;
    const { samples, mean } = await monitorStore.recentMean(trx, monitor.id, threshold.window_minutes);
    const crossed = mean !== null && samples >= threshold.min_samples && mean < threshold.below;
    if (!(await monitorStore.setThresholdCrossed(trx, monitor.id, crossed)) || !crossed) continue;
    const project = parseProjectId(monitor.projectId)!;
    const payload: MonitorScoreDropPayload = {
      metric: { name: monitor.name, value: mean, step: samples },
      monitor: { id: monitor.id, name: monitor.name, ...threshold, samples, mean_score: mean },
    };
    await publishEvent(trx, {
      type: MONITOR_SCORE_DROP_EVENT,
      entity: project.entity,
      project: project.project,
      author: `monitor:${monitor.name}`,
      payload: payload as unknown as Record<string, unknown>,
    });
  }
}
