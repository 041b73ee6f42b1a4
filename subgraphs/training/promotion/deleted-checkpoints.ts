import type { Principal } from '../../../platform/auth/principal.js';
import { TRAINING_CHECKPOINTS_DELETED_EVENT, type TrainingCheckpointsDeletedPayload } from '../../../platform/events/contracts.js';
import { publishEvent } from '../../../platform/events/index.js';
import type { ModelRow, TrainingDb, TrainingStore } from '../store.js';

/**
 * Before checkpoints are deleted (steps listed, or the whole model: null), announces which, so the registry deletes
 * their artifact versions with every alias on them and inference stops serving `{entity}/{project}/{model}:{alias}`
 * (`production`, `step<N>`, `latest`, `v<N>`) for them. Runs in the deleting transaction, after the model's row
 * lock, so a concurrent promotion is either seen here or sees the deletion.
 */
export async function announceDeletedCheckpoints(
  store: TrainingStore,
  trx: TrainingDb,
  principal: Principal,
  model: ModelRow,
  steps: number[] | null,
): Promise<void> {
  const deleted = await store.checkpointStepsAmong(trx, model.id, steps);
  if (deleted.length === 0) return;
  const payload: TrainingCheckpointsDeletedPayload = { author_id: principal.userId, model_id: model.id, model_name: model.name, steps: deleted };
  await publishEvent(trx as never, {
    type: TRAINING_CHECKPOINTS_DELETED_EVENT,
    entity: model.entity,
    project: model.project,
    author: principal.username,
    payload: payload as unknown as Record<string, unknown>,
  });
}
