import type { Kysely } from 'kysely';
import { INFERENCE_COMPLETION_EVENT, type InferenceCompletionPayload } from '../../../platform/events/contracts.js';
import { claimEventCursor, claimEvents, loadEventCursor } from '../../../platform/events/event-cursor.js';
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
 * processes consuming the same events at once record each call once and never move the cursor back. The events read
 * together are recorded together (one transaction, one write per project and author: completions arrive by the
 * hundred a second under load). The caller was authorized for the project when the completion was served.
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
    await this.applyBatch([event]);
  }

  /** The calls of every event of the batch (one write per project and author) and the cursor, in one transaction. */
  protected override async applyBatch(events: PlatformEvent[]): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const fresh = await claimEvents(trx, CONSUMER, events);
      const groups = new Map<string, { projectId: string; authorId: string; batch: CompletedCallsBody['batch'] }>();
      for (const event of fresh) {
        const payload = event.payload as unknown as InferenceCompletionPayload;
        const projectId = `${event.entity}/${event.project}`;
        const key = JSON.stringify([projectId, payload.author_id]);
        let group = groups.get(key);
        if (!group) groups.set(key, (group = { projectId, authorId: payload.author_id, batch: [] }));
        group.batch.push({ ...payload.call, project_id: projectId });
      }
      for (const { projectId, authorId, batch } of groups.values()) {
        await this.calls.completeBatch({ userId: authorId, assertWriter: () => undefined }, projectId, { batch }, trx);
      }
    });
  }

  protected async passOver(event: PlatformEvent): Promise<void> {
    await this.db.transaction().execute((trx) => claimEventCursor(trx, CONSUMER, event.cursor));
  }
}
