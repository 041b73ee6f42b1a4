import type { Kysely } from 'kysely';
import { INFERENCE_COMPLETION_EVENT, type InferenceCompletionPayload } from '../../../platform/events/contracts.js';
import { PlatformEventConsumer, type PlatformEvent, type PlatformEventStream } from '../../../platform/events/index.js';
import type { Logger } from '../../../platform/logger.js';
import type { CompletedCallsBody } from '../call/call.schemas.js';
import type { CallService } from '../call/call.service.js';
import type { TracingDatabase } from '../db/database.js';

const CONSUMER = 'inference-completions';

/**
 * Records Family B's traced chat completions as calls of their project: consumes `inference.completion` platform
 * events after its stored cursor and writes each call and the new cursor in one transaction, so a restart resumes
 * exactly where it stopped (PlatformEventConsumer). Writes are idempotent (a call id is stored once), so two
 * processes consuming the same events at once only repeat work. The caller was authorized for the project when the completion was served.
 */
export class InferenceCallRecorder extends PlatformEventConsumer {
  readonly name = 'tracing-inference-calls';

  constructor(
    private readonly db: Kysely<TracingDatabase>,
    private readonly calls: CallService,
    stream: PlatformEventStream,
    logger: Logger,
  ) {
    super(stream, new Set([INFERENCE_COMPLETION_EVENT]), logger);
  }

  protected async loadCursor(): Promise<string | undefined> {
    return (await this.db.selectFrom('event_cursors').select('cursor').where('consumer', '=', CONSUMER).executeTakeFirst())?.cursor;
  }

  protected async apply(event: PlatformEvent): Promise<void> {
    const payload = event.payload as unknown as InferenceCompletionPayload;
    const projectId = `${event.entity}/${event.project}`;
    const writer = { userId: payload.author_id, assertWriter: () => undefined };
    await this.db.transaction().execute(async (trx) => {
      const batch: CompletedCallsBody = { batch: [{ ...payload.call, project_id: projectId }] };
      await this.calls.completeBatch(writer, projectId, batch, trx);
      await this.saveCursor(trx, event.cursor);
    });
  }

  protected passOver(event: PlatformEvent): Promise<void> {
    return this.saveCursor(this.db, event.cursor);
  }

  private async saveCursor(db: Kysely<TracingDatabase>, cursor: string): Promise<void> {
    await db
      .insertInto('event_cursors')
      .values({ consumer: CONSUMER, cursor })
      .onConflict((oc) => oc.column('consumer').doUpdateSet({ cursor, updated_at: new Date() }))
      .execute();
  }
}
