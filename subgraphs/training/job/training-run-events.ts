import { publishEvent } from '../../../platform/events/index.js';
import type { JobRow, ModelRow, TrainingDb } from '../store.js';

/** The fields every training.* platform event carries (platform/events/contracts.ts). */
export type TrainingRunRefFields = { author_id: string; model_id: string; model_name: string; base_model: string; run_name: string; job_id: string };

/** Publishes one of training's registry-facing events in the caller's transaction (see platform/events/contracts.ts). */
export async function publishTrainingEvent(
  trx: TrainingDb,
  type: string,
  job: JobRow,
  model: ModelRow,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const ref: TrainingRunRefFields = {
    author_id: job.created_by_id,
    model_id: model.id,
    model_name: model.name,
    base_model: model.base_model,
    run_name: model.run_id,
    job_id: job.id,
  };
  await publishEvent(trx as never, { type, entity: model.entity, project: model.project, author: job.created_by, payload: { ...ref, ...extra } });
}
