import { sql, type Kysely, type Transaction } from 'kysely';
import { TRAINING_CHAT_COMPLETION_EVENT, type TrainingChatCompletionPayload } from '../../../platform/events/contracts.js';
import { parseCursor, PlatformEventConsumer, type PlatformEvent, type PlatformEventStream } from '../../../platform/events/index.js';
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
    return (await this.db.selectFrom('event_cursors').select('cursor').where('consumer', '=', CONSUMER).executeTakeFirst())?.cursor;
  }

  protected async apply(event: PlatformEvent): Promise<void> {
    const usage = event.payload as unknown as TrainingChatCompletionPayload;
    await this.db.transaction().execute(async (trx) => {
      if (!(await this.claim(trx, event.cursor))) return;
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
    await this.db.transaction().execute((trx) => this.claim(trx, event.cursor));
  }

  /** Moves the stored cursor to `cursor` under a row lock; false when it is already there or past it. */
  private async claim(trx: Transaction<InferenceDatabase>, cursor: string): Promise<boolean> {
    await trx.insertInto('event_cursors').values({ consumer: CONSUMER, cursor: '0.0' }).onConflict((oc) => oc.column('consumer').doNothing()).execute();
    const stored = await trx.selectFrom('event_cursors').select('cursor').where('consumer', '=', CONSUMER).forUpdate().executeTakeFirstOrThrow();
    if (!isAfter(cursor, stored.cursor)) return false;
    await trx.updateTable('event_cursors').set({ cursor, updated_at: sql`now()` }).where('consumer', '=', CONSUMER).execute();
    return true;
  }
}

/** Whether event cursor `a` comes after `b` (cursors order by transaction id, then event id). */
function isAfter(a: string, b: string): boolean {
  const x = parseCursor(a);
  const y = parseCursor(b);
  if (!x || !y) return true;
  return x.txId !== y.txId ? x.txId > y.txId : x.id > y.id;
}
