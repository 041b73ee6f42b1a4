import type { Kysely } from 'kysely';
import { INFERENCE_COMPLETION_EVENT } from '../../../platform/events/contracts.js';
import { claimEventCursor, claimEvents, loadEventCursor } from '../../../platform/events/event-cursor.js';
import { eventRows, PlatformEventConsumer, type PlatformEvent, type PlatformEventStream } from '../../../platform/events/index.js';
import type { Logger } from '../../../platform/logger.js';
import { callStore } from '../call/call.store.js';
import type { TracingDatabase } from '../db/database.js';

const CONSUMER = 'inference-completions';

/**
 * Records Family B's traced chat completions as calls of their project: consumes `inference.completion` platform
 * events after its stored cursor and writes each call and the new cursor in one transaction, so a restart resumes
 * exactly where it stopped (PlatformEventConsumer). The transaction claims the event first (claimEventCursor), so
 * processes consuming the same events at once record each call once and never move the cursor back. The events read
 * together are recorded together, in one transaction and one statement that reads their payloads inside the
 * database (completions arrive by the hundred a second under load, each carrying its messages and output: the
 * recorder reads the events without payloads, and never sends them back). The caller was authorized for the project
 * when the completion was served.
 */
export class InferenceCallRecorder extends PlatformEventConsumer {
  readonly name = 'tracing-inference-calls';
  protected override readonly readsPayloads = false;

  constructor(
    private readonly db: Kysely<TracingDatabase>,
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

  /** The calls of every event of the batch and the cursor, in one transaction. */
  protected override async applyBatch(events: PlatformEvent[]): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const fresh = await claimEvents(trx, CONSUMER, events);
      if (fresh.length > 0) await callStore.insertInferenceCompletions(trx, eventRows(fresh.map((event) => event.id)));
    });
  }

  protected async passOver(event: PlatformEvent): Promise<void> {
    await this.db.transaction().execute((trx) => claimEventCursor(trx, CONSUMER, event.cursor));
  }
}
