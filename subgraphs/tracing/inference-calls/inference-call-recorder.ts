import type { Kysely } from 'kysely';
import { INFERENCE_COMPLETION_EVENT, type InferenceCompletionPayload } from '../../../platform/events/contracts.js';
import { claimEventCursor, loadEventCursor } from '../../../platform/events/event-cursor.js';
import { PlatformEventConsumer, type PlatformEvent, type PlatformEventStream } from '../../../platform/events/index.js';
import type { Logger } from '../../../platform/logger.js';
import type { CompletedCallsBody } from '../call/call.schemas.js';
import type { CallService } from '../call/call.service.js';
import type { TracingDatabase } from '../db/database.js';

const CONSUMER = 'inference-completions';

/**
 * Records Family B's traced chat completions as calls of their project: consumes `inference.completion` platform
 * events after its stored cursor and writes each call and the new cursor in one transaction, so a restart resumes
 * exactly where it stopped (PlatformEventConsumer). The transaction claims the event first (claimEventCursor), so
 * processes consuming the same events at once record each call once and never move the cursor back. The caller
 * was authorized for the project when the completion was served.
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
    return loadEventCursor(this.db, CONSUMER);
  }

  protected async apply(event: PlatformEvent): Promise<void> {
    const payload = event.payload as unknown as InferenceCompletionPayload;
    const projectId = `${event.entity}/${event.project}`;
    const writer = { userId: payload.author_id, assertWriter: () => undefined };
    await this.db.transaction().execute(async (trx) => {
      if (!(await claimEventCursor(trx, CONSUMER, event.cursor))) return;
      const batch: CompletedCallsBody = { batch: [{ ...payload.call, project_id: projectId }] };
      await this.calls.completeBatch(writer, projectId, batch, trx);
    });
  }

  protected async passOver(event: PlatformEvent): Promise<void> {
    await this.db.transaction().execute((trx) => claimEventCursor(trx, CONSUMER, event.cursor));
  }
}
