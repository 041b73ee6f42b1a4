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
 */
export abstract class PlatformEventConsumer implements BackgroundWorker {
  abstract readonly name: string;
  /** A consumer applies each event once for the platform: one process reads the stream. */
  readonly onePerPlatform = true;
  private events?: AsyncIterableIterator<PlatformEvent>;
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

  async start(): Promise<void> {
    const cursor = (await this.loadCursor()) ?? START_CURSOR;
    this.events = this.stream.subscribe(cursor, { filter: (event) => this.types.has(event.type) });
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
          await this.apply(event);
          break;
        } catch (error) {
          if (error instanceof ValidationFailedError || isRecordError(error)) {
            // Retrying could never succeed, and would hold back every later event.
            deadLetter(event, error, { writer: this.name, logger: this.logger, describe: (dead) => ({ event: dead.id, type: dead.type, consumer: this.name }) });
            await this.passOver(event);
            break;
          }
          this.logger.warn({ err: error, event: event.id, consumer: this.name }, 'applying a platform event failed; retrying');
          await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS));
        }
      }
      if (this.stopping) return;
    }
  }
}
