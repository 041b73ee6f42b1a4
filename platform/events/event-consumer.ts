import { deadLetter, isRecordError } from '../db/poisoned-records.js';
import { ValidationFailedError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { BackgroundWorker } from '../subgraph.js';
import { START_CURSOR, type PlatformEvent } from './event.js';
import type { PlatformEventStream } from './event-stream.js';

const RETRY_DELAY_MS = 1_000;

/**
 * A subgraph's durable consumer of platform events (how one subgraph acts on another's changes without reading
 * its tables). It follows the event types it handles from its stored cursor; `apply` must write the event's
 * changes and the new cursor in one transaction, so a restart neither misses nor repeats an event — claiming the
 * cursor first (claimEventCursor), so that several processes consuming the same events apply each once. Transient
 * failures are retried; an event that can never be applied (ValidationFailedError, or data the database cannot
 * store: platform/db/poisoned-records.ts) is dead-lettered (logged, counted) and passed over.
 *
 * A consumer of frequent events (one per traced inference completion) also implements `applyBatch`: the events
 * read together (up to a page of the outbox) are then applied in one transaction, and only when that batch holds
 * an event that can never be applied is it applied event by event, to pass over just that one.
 */
export abstract class PlatformEventConsumer implements BackgroundWorker {
  abstract readonly name: string;
  /** A consumer applies each event once for the platform: one process reads the stream. */
  readonly onePerPlatform = true;
  /**
   * Most events applied together by `applyBatch`: applying a batch runs on the event loop of a process that also
   * serves requests (validating and serializing 500 traced completions took 10–30 ms at a time), so batches stay
   * small enough to take a few milliseconds, and the requests get the loop between them.
   */
  protected readonly batchSize: number = 100;
  /** Whether `apply`/`applyBatch` need the events' payloads (see SubscribeOptions.withoutPayloads). */
  protected readonly readsPayloads: boolean = true;
  /** How long to let events gather before reading, once notified (see SubscribeOptions.gatherMs). */
  protected readonly gatherMs: number = 0;
  private pages?: AsyncIterableIterator<PlatformEvent[]>;
  private running?: Promise<void>;
  private stopping = false;

  constructor(
    private readonly stream: PlatformEventStream,
    private readonly types: ReadonlySet<string>,
    protected readonly logger: Logger,
  ) {}

  /** The cursor stored by the last `apply`/`passOver`, if any. */
  protected abstract loadCursor(): Promise<string | undefined>;
  /** Writes the event's changes and stores `event.cursor`, in one transaction. */
  protected abstract apply(event: PlatformEvent): Promise<void>;
  /** Stores `event.cursor` without applying the event. */
  protected abstract passOver(event: PlatformEvent): Promise<void>;
  /** Optional: writes the changes of several events (in stream order) and stores the last one's cursor, in one transaction. */
  protected applyBatch?(events: PlatformEvent[]): Promise<void>;

  async start(): Promise<void> {
    const cursor = (await this.loadCursor()) ?? START_CURSOR;
    this.pages = this.stream.subscribePages(cursor, { types: [...this.types], pageSize: this.batchSize, withoutPayloads: !this.readsPayloads, gatherMs: this.gatherMs });
    this.running = this.consume(this.pages);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.pages?.return?.();
    await this.running;
  }

  private async consume(pages: AsyncIterableIterator<PlatformEvent[]>): Promise<void> {
    for await (const events of pages) {
      if (events.length > 1 && this.applyBatch && (await this.applyTogether(events))) continue;
      for (const event of events) {
        await this.applyAlone(event);
        if (this.stopping) return;
      }
      if (this.stopping) return;
    }
  }

  /** True once the batch is applied; false when it holds an event that can never be (or the consumer stops). */
  private async applyTogether(events: PlatformEvent[]): Promise<boolean> {
    while (!this.stopping) {
      try {
        await this.applyBatch!(events);
        return true;
      } catch (error) {
        if (isPermanent(error)) return false;
        this.logger.warn({ err: error, events: events.length, consumer: this.name }, 'applying platform events failed; retrying');
        await delay(RETRY_DELAY_MS);
      }
    }
    return false;
  }

  private async applyAlone(event: PlatformEvent): Promise<void> {
    while (!this.stopping) {
      try {
        await this.apply(event);
        return;
      } catch (error) {
        if (isPermanent(error)) {
          // Retrying could never succeed, and would hold back every later event.
          deadLetter(event, error, { writer: this.name, logger: this.logger, describe: (dead) => ({ event: dead.id, type: dead.type, consumer: this.name }) });
          await this.passOver(event);
          return;
        }
        this.logger.warn({ err: error, event: event.id, consumer: this.name }, 'applying a platform event failed; retrying');
        await delay(RETRY_DELAY_MS);
      }
    }
  }
}

/** An event the consumer refuses (ValidationFailedError) or data the database can never store. */
function isPermanent(error: unknown): boolean {
  return error instanceof ValidationFailedError || isRecordError(error);
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
