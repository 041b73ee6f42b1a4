import type { Principal } from '../../../platform/auth/principal.js';
import { TRAINING_CHECKPOINT_ALIASES_REMOVED_EVENT, type TrainingCheckpointAliasesRemovedPayload } from '../../../platform/events/contracts.js';
import { publishEvent } from '../../../platform/events/index.js';
import type { ModelRow, TrainingDb, TrainingStore } from '../store.js';

/**
 * Before checkpoints are deleted (steps listed, or the whole model: null), announces the named aliases that go with
 * them (`checkpoint_aliases` rows cascade silently), so the registry drops the same aliases from the checkpoints'
 * artifact versions and inference stops serving `{entity}/{project}/{model}:{alias}` for them. Runs in the deleting
 * transaction, after the model's row lock, so a concurrent promotion is either seen here or sees the deletion.
 */
export async function announceRemovedAliases(
  store: TrainingStore,
  trx: TrainingDb,
  principal: Principal,
  model: ModelRow,
  steps: number[] | null,
): Promise<void> {
  const aliases = await store.aliasesAtSteps(trx, model.id, steps);
  if (aliases.length === 0) return;
  const payload: TrainingCheckpointAliasesRemovedPayload = { author_id: principal.userId, model_id: model.id, model_name: model.name, aliases };
  await publishEvent(trx as never, {
    type: TRAINING_CHECKPOINT_ALIASES_REMOVED_EVENT,
    entity: model.entity,
    project: model.project,
    author: principal.username,
    payload: payload as unknown as Record<string, unknown>,
  });
}
