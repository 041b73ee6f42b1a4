import { deadLetter, isRecordError } from '../db/poisoned-records.js';
import { ValidationFailedError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { BackgroundWorker } from '../subgraph.js';
import { ageSeconds, eventConsumerEvents, eventConsumerLag } from '../http/worker-metrics.js';
import { START_CURSOR, type PlatformEvent } from './event.js';
import type { PlatformEventStream } from './event-stream.js';

const RETRY_DELAY_MS = 1_000;
/**
 * A consumer's position is reported for the event log's retention at most this often (a write per applied page
 * would add a statement to every batch of a busy consumer); the last one is always reported.
 */
const POSITION_REPORT_MS = 1_000;

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
  /** The position applied last and not yet reported, and the timer that will report it. */
  private unreportedCursor: string | undefined;
  private positionTimer: NodeJS.Timeout | undefined;
  private reportingPosition: Promise<void> | undefined;

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
    // Its series exist from the start (0), so a dashboard tells an idle consumer from a missing one.
    eventConsumerEvents.inc({ consumer: this.name }, 0);
    eventConsumerLag.set({ consumer: this.name }, 0);
    const cursor = (await this.loadCursor()) ?? START_CURSOR;
    // Registers the consumer with the event log's retention before it reads anything: from now on no event of its
    // types after this cursor is deleted before it applied it.
    await this.reportPosition(cursor);
    this.pages = this.stream.subscribePages(cursor, { types: [...this.types], pageSize: this.batchSize, withoutPayloads: !this.readsPayloads, gatherMs: this.gatherMs });
    this.running = this.consume(this.pages);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.pages?.return?.();
    await this.running;
    clearTimeout(this.positionTimer);
    await this.reportingPosition;
    if (this.unreportedCursor) await this.reportPosition(this.unreportedCursor);
  }

  private async consume(pages: AsyncIterableIterator<PlatformEvent[]>): Promise<void> {
    for await (const events of pages) {
      if (events.length > 1 && this.applyBatch && (await this.applyTogether(events))) {
        this.appliedUpTo(events.at(-1)!.cursor);
        continue;
      }
      for (const event of events) {
        await this.applyAlone(event);
        if (this.stopping) return;
        this.appliedUpTo(event.cursor);
      }
      if (this.stopping) return;
    }
  }

  /** Notes that the events up to `cursor` are applied (committed), to be reported within POSITION_REPORT_MS. */
  private appliedUpTo(cursor: string): void {
    this.unreportedCursor = cursor;
    this.positionTimer ??= setTimeout(() => {
      this.positionTimer = undefined;
      const reported = this.unreportedCursor;
      this.unreportedCursor = undefined;
      if (reported) this.reportingPosition = this.reportPosition(reported);
    }, POSITION_REPORT_MS);
  }

  /** Never fails the consumer: a position reported late only keeps events longer. */
  private async reportPosition(cursor: string): Promise<void> {
    try {
      await this.stream.reportPosition({ consumer: this.name, types: [...this.types], cursor });
    } catch (error) {
      this.logger.warn({ err: error, consumer: this.name }, 'could not report the consumer position to the event log retention');
    }
  }

  /** True once the batch is applied; false when it holds an event that can never be (or the consumer stops). */
  private async applyTogether(events: PlatformEvent[]): Promise<boolean> {
    while (!this.stopping) {
      try {
        await this.applyBatch!(events);
        this.count(events);
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
        this.count([event]);
        return;
      } catch (error) {
        if (isPermanent(error)) {
          // Retrying could never succeed, and would hold back every later event.
          deadLetter(event, error, { writer: this.name, logger: this.logger, describe: (dead) => ({ event: dead.id, type: dead.type, consumer: this.name }) });
          await this.passOver(event);
          this.count([event]);
          return;
        }
        this.logger.warn({ err: error, event: event.id, consumer: this.name }, 'applying a platform event failed; retrying');
        await delay(RETRY_DELAY_MS);
      }
    }
  }

  /** Events applied or passed over, and how old the newest was when it was: the consumer's lag, for /metrics. */
  private count(events: PlatformEvent[]): void {
    eventConsumerEvents.inc({ consumer: this.name }, events.length);
    eventConsumerLag.set({ consumer: this.name }, ageSeconds(events.at(-1)!.createdAt));
  }
}

/** An event the consumer refuses (ValidationFailedError) or data the database can never store. */
function isPermanent(error: unknown): boolean {
  return error instanceof ValidationFailedError || isRecordError(error);
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
