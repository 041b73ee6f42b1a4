import type { Kysely } from 'kysely';
import { TRAINING_CHAT_COMPLETION_EVENT, type TrainingChatCompletionPayload } from '../../../platform/events/contracts.js';
import { claimEventCursor, loadEventCursor } from '../../../platform/events/event-cursor.js';
import { PlatformEventConsumer, type PlatformEvent, type PlatformEventStream } from '../../../platform/events/index.js';
import type { Logger } from '../../../platform/logger.js';
import type { InferenceDatabase } from '../db/database.js';
import { usageStore } from './usage.store.js';

const CONSUMER = 'training-chat-completions';

/**
 * Counts the training subgraph's chat completions (base models and checkpoints) in inference's usage, so every
 * path to a model shows in `inferenceUsage`: consumes `training.chat_completion` platform events after its stored
 * cursor and writes each usage record with the new cursor in one transaction. A usage record is not idempotent
 * (two would count twice), so the transaction locks the cursor row first and skips an event it has already passed:
 * processes consuming at once write each record exactly once.
 */
export class TrainingUsageRecorder extends PlatformEventConsumer {
  readonly name = 'inference-training-usage';

  constructor(
    private readonly db: Kysely<InferenceDatabase>,
    stream: PlatformEventStream,
    logger: Logger,
  ) {
    super(stream, new Set([TRAINING_CHAT_COMPLETION_EVENT]), logger);
  }

  protected async loadCursor(): Promise<string | undefined> {
    return loadEventCursor(this.db, CONSUMER);
  }

  protected async apply(event: PlatformEvent): Promise<void> {
    const usage = event.payload as unknown as TrainingChatCompletionPayload;
    await this.db.transaction().execute(async (trx) => {
      if (!(await claimEventCursor(trx, CONSUMER, event.cursor))) return;
      await usageStore.insertMany(trx, [
        {
          createdAt: new Date(usage.created_at),
          entity: event.entity,
          project: event.project ?? '',
          model: usage.model,
          backend: 'training',
          deployment: null,
          apiKeyId: usage.api_key_id,
          userId: usage.user_id,
          endUser: usage.end_user,
          stream: usage.stream,
          status: usage.status,
          errorCode: usage.error_code,
          errorMessage: usage.error_message,
          promptTokens: usage.prompt_tokens,
          completionTokens: usage.completion_tokens,
          totalTokens: usage.total_tokens,
          latencyMs: usage.latency_ms,
          firstTokenMs: usage.first_token_ms,
          attempts: 1,
          requestId: usage.request_id,
        },
      ]);
    });
  }

  protected async passOver(event: PlatformEvent): Promise<void> {
    await this.db.transaction().execute((trx) => claimEventCursor(trx, CONSUMER, event.cursor));
  }
}
