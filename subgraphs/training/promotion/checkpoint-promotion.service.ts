import type { Principal } from '../../../platform/auth/principal.js';
import { ValidationFailedError } from '../../../platform/errors.js';
import { TRAINING_CHECKPOINT_PROMOTED_EVENT, type TrainingCheckpointPromotedPayload } from '../../../platform/events/contracts.js';
import { publishEvent } from '../../../platform/events/index.js';
import { validateOrThrow } from '../../../platform/validation.js';
import type { CheckpointRow, TrainingStore } from '../store.js';
import type { TrainingService } from '../training-service.js';
import { CheckpointPromoteBody, RESERVED_CHECKPOINT_ALIAS } from '../training.schemas.js';

/**
 * Promotion: a named alias (`production`) of a model points at one of its checkpoints, so training chat
 * (`wandb-artifact:///{entity}/{project}/{model}:production`) and, through the registry, inference
 * (`{entity}/{project}/{model}:production`) serve whichever checkpoint it points at. Moving the alias, checking the
 * step and publishing `training.checkpoint_promoted` happen in one transaction under the model's row lock, so two
 * promotions of one alias serialise and a rejected one changes nothing.
 */
export class CheckpointPromotionService {
  constructor(
    private readonly store: TrainingStore,
    private readonly training: TrainingService,
  ) {}

  async promote(principal: Principal, modelId: string, body: unknown): Promise<CheckpointRow> {
    const input = validateOrThrow(CheckpointPromoteBody, body);
    if (RESERVED_CHECKPOINT_ALIAS.test(input.alias)) {
      throw new ValidationFailedError([{ loc: ['body', 'alias'], msg: `"${input.alias}" is computed from the steps and cannot be given`, type: 'value_error' }]);
    }
    // Team members may write to the model's project (training's access rule); 404/403 otherwise.
    const model = await this.training.model(principal, modelId);
    return this.store.transaction(async (trx) => {
      await this.store.lockModel(trx, model.id);
      const checkpoint = await this.store.checkpointAtStep(trx, model.id, input.step);
      if (!checkpoint) {
        throw new ValidationFailedError([{ loc: ['body', 'step'], msg: `Model "${model.name}" has no checkpoint at step ${input.step}`, type: 'value_error' }]);
      }
      const previousId = await this.store.aliasTarget(trx, model.id, input.alias);
      if (previousId === checkpoint.id) return checkpoint; // already there: nothing moves, nothing is announced
      const previous = previousId === undefined ? undefined : await this.store.checkpoint(previousId);
      await this.store.setAlias(trx, { model_id: model.id, alias: input.alias, checkpoint_id: checkpoint.id, promoted_by: principal.username });
      const payload: TrainingCheckpointPromotedPayload = {
        author_id: principal.userId,
        model_id: model.id,
        model_name: model.name,
        base_model: model.base_model,
        step: checkpoint.step,
        alias: input.alias,
        previous_step: previous?.step ?? null,
      };
      await publishEvent(trx as never, {
        type: TRAINING_CHECKPOINT_PROMOTED_EVENT,
        entity: model.entity,
        project: model.project,
        author: principal.username,
        payload: payload as unknown as Record<string, unknown>,
      });
      return checkpoint;
    });
  }
}
