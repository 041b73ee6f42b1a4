import type { Kysely } from 'kysely';
import { ValidationFailedError } from '../../../platform/errors.js';
import { INFERENCE_COMPLETION_EVENT, type InferenceCompletionPayload } from '../../../platform/events/contracts.js';
import { START_CURSOR, type PlatformEvent, type PlatformEventStream } from '../../../platform/events/index.js';
import type { Logger } from '../../../platform/logger.js';
import type { BackgroundWorker } from '../../../platform/subgraph.js';
import type { CompletedCallsBody } from '../call/call.schemas.js';
import type { CallService } from '../call/call.service.js';
import type { TracingDatabase } from '../db/database.js';

const CONSUMER = 'inference-completions';
const RETRY_DELAY_MS = 1_000;

/**
 * Records Family B's traced chat completions as calls of their project: consumes `inference.completion` platform
 * events after its stored cursor and writes each call and the new cursor in one transaction, so a restart resumes
 * exactly where it stopped. Writes are idempotent (a call id is stored once), so two processes consuming the same
 * events at once only repeat work. The caller was authorized for the project when the completion was served.
 */
export class InferenceCallRecorder implements BackgroundWorker {
  readonly name = 'tracing-inference-calls';
  private events?: AsyncIterableIterator<PlatformEvent>;
  private running?: Promise<void>;
  private stopping = false;

  constructor(
    private readonly db: Kysely<TracingDatabase>,
    private readonly calls: CallService,
    private readonly stream: PlatformEventStream,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    const stored = await this.db.selectFrom('event_cursors').select('cursor').where('consumer', '=', CONSUMER).executeTakeFirst();
    this.events = this.stream.subscribe(stored?.cursor ?? START_CURSOR, { filter: (event) => event.type === INFERENCE_COMPLETION_EVENT });
    this.running = this.consume(this.events);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.events?.return?.();
    await this.running;
  }

  private async consume(events: AsyncIterableIterator<PlatformEvent>): Promise<void> {
    for await (const event of events) {
      while (!this.stopping) {
        try {
          await this.record(event);
          break;
        } catch (error) {
          if (error instanceof ValidationFailedError) {
            // A malformed call can never be recorded: note it and move past it rather than block the stream.
            this.logger.error({ err: error, event: event.id }, 'inference completion event could not be recorded as a call');
            await this.saveCursor(this.db, event.cursor);
            break;
          }
          this.logger.warn({ err: error, event: event.id }, 'recording an inference call failed; retrying');
          await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS));
        }
      }
      if (this.stopping) return;
    }
  }

  private async record(event: PlatformEvent): Promise<void> {
    const payload = event.payload as unknown as InferenceCompletionPayload;
    const projectId = `${event.entity}/${event.project}`;
    const writer = { userId: payload.author_id, assertWriter: () => undefined };
    await this.db.transaction().execute(async (trx) => {
      const batch: CompletedCallsBody = { batch: [{ ...payload.call, project_id: projectId }] };
      await this.calls.completeBatch(writer, projectId, batch, trx);
      await this.saveCursor(trx, event.cursor);
    });
  }

  private async saveCursor(db: Kysely<TracingDatabase>, cursor: string): Promise<void> {
    await db
      .insertInto('event_cursors')
      .values({ consumer: CONSUMER, cursor })
      .onConflict((oc) => oc.column('consumer').doUpdateSet({ cursor, updated_at: new Date() }))
      .execute();
  }
}
