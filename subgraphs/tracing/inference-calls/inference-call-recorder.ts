import { sql, type Kysely, type Transaction } from 'kysely';
import { deadLetter, isRecordError } from '../../../platform/db/poisoned-records.js';
import { INFERENCE_COMPLETION_EVENT, INFERENCE_COMPLETIONS_EVENT } from '../../../platform/events/contracts.js';
import { claimEventCursor, claimEvents, loadEventCursor } from '../../../platform/events/event-cursor.js';
import { eventRows, PlatformEventConsumer, type PlatformEvent, type PlatformEventStream } from '../../../platform/events/index.js';
import type { Logger } from '../../../platform/logger.js';
import { callStore } from '../call/call.store.js';
import type { TracingDatabase } from '../db/database.js';
import type { EndedCallsPublisher } from '../monitor/ended-calls-publisher.js';
import { monitorStore } from '../monitor/monitor.store.js';

const CONSUMER = 'inference-completions';

/**
 * Records Family B's traced chat completions as calls of their project: consumes `inference.completions` platform
 * events (a batch of a project's completions each; `inference.completion`, one each, from earlier versions) after its
 * stored cursor and writes the calls and the new cursor in one transaction, so a restart resumes exactly where it
 * stopped (PlatformEventConsumer). The transaction claims the events first (claimEventCursor), so processes
 * consuming the same events at once record each call once and never move the cursor back. The events read together
 * are recorded together, in one transaction and one statement that reads their payloads inside the database (each
 * completion carries its messages and output: the recorder reads the events without payloads, and never sends them
 * back). A call the database cannot store is dead-lettered alone; the others of its event are recorded. The caller
 * was authorized for the project when the completion was served.
 */
export class InferenceCallRecorder extends PlatformEventConsumer {
  readonly name = 'tracing-inference-calls';
  protected override readonly readsPayloads = false;
  /**
   * An event carries up to a flush's batch of calls (100): a backlog is recorded at most 2,000 calls a statement, whose
   * payloads the statement holds and sorts in memory.
   */
  protected override readonly batchSize = 20;
  /**
   * Under load a flush publishes an event every few tens of milliseconds; read one by one, each cost a read and a
   * transaction of its own (claim the cursor, move it, insert the calls). Gathered for this long, several are recorded together (traced calls then appear
   * this much later, after the flush that published them).
   */
  protected override readonly gatherMs = 200;

  constructor(
    private readonly db: Kysely<TracingDatabase>,
    stream: PlatformEventStream,
    logger: Logger,
    /** Tells the monitors of the calls recorded for projects that have one (in the recording transaction). */
    private readonly endedCalls?: EndedCallsPublisher,
  ) {
    super(stream, new Set([INFERENCE_COMPLETIONS_EVENT, INFERENCE_COMPLETION_EVENT]), logger);
  }

  protected async loadCursor(): Promise<string | undefined> {
    return loadEventCursor(this.db, CONSUMER);
  }

  /** One event (read alone, or the batch it was read with could not be recorded). */
  protected async apply(event: PlatformEvent): Promise<void> {
    try {
      await this.applyBatch([event]);
    } catch (error) {
      if (!isRecordError(error)) throw error;
      await this.applyCallByCall(event);
    }
  }

  /** The event's calls one at a time, dead-lettering those the database cannot store, and the cursor. */
  private async applyCallByCall(event: PlatformEvent): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      if ((await claimEvents(trx, CONSUMER, [event])).length === 0) return;
      const rows = eventRows([event.id]);
      const count = await callStore.inferenceCompletionCount(trx, rows);
      for (let position = 1; position <= count; position++) {
        try {
          await inSavepoint(trx, () => callStore.insertInferenceCompletions(trx, rows, { position }));
        } catch (error) {
          if (!isRecordError(error)) throw error;
          deadLetter(event, error, { writer: this.name, logger: this.logger, describe: (dead) => ({ event: dead.id, type: dead.type, position, consumer: this.name }) });
        }
      }
      // Those recorded (the monitors read only calls that exist).
      await this.publishMonitored(trx, [event]);
    });
  }

  /** The calls of every event of the batch and the cursor, in one transaction. */
  protected override async applyBatch(events: PlatformEvent[]): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const fresh = await claimEvents(trx, CONSUMER, events);
      if (fresh.length > 0) await callStore.insertInferenceCompletions(trx, eventRows(fresh.map((event) => event.id)));
      await this.publishMonitored(trx, fresh);
    });
  }

  /** The recorded calls of projects with an active monitor, published for it (their ids read from the events alone). */
  private async publishMonitored(trx: Transaction<TracingDatabase>, events: PlatformEvent[]): Promise<void> {
    const monitored = events.filter((event) => event.project !== null && this.endedCalls?.monitors(`${event.entity}/${event.project}`));
    if (monitored.length === 0) return;
    for (const author of new Set(monitored.map((event) => event.author))) {
      const own = monitored.filter((event) => event.author === author);
      await this.endedCalls!.publish(trx, await monitorStore.inferenceCallKeys(trx, eventRows(own.map((event) => event.id))), author);
    }
  }

  protected async passOver(event: PlatformEvent): Promise<void> {
    await this.db.transaction().execute((trx) => claimEventCursor(trx, CONSUMER, event.cursor));
  }
}

/** Runs a statement so that its failure leaves the transaction usable (PostgreSQL aborts it otherwise). */
async function inSavepoint(trx: Transaction<TracingDatabase>, write: () => Promise<void>): Promise<void> {
  await sql`savepoint inference_call`.execute(trx);
  try {
    await write();
  } catch (error) {
    await sql`rollback to savepoint inference_call`.execute(trx);
    throw error;
  }
  await sql`release savepoint inference_call`.execute(trx);
}
