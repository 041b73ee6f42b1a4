import { performance } from 'node:perf_hooks';
import type { Kysely } from 'kysely';
import type { Principal } from '../../../platform/auth/principal.js';
import { TrellisError } from '../../../platform/errors.js';
import { TRAINING_CHAT_COMPLETION_EVENT, type TrainingChatCompletionPayload } from '../../../platform/events/contracts.js';
import { publishEvent, type NewPlatformEvent } from '../../../platform/events/index.js';
import type { Logger } from '../../../platform/logger.js';
import { DEFAULT_USAGE_PROJECT } from '../../../platform/model-access/limits.js';
import type { Lease, ModelLimiter } from '../../../platform/model-access/request-limiter.js';

export interface ChatCaller {
  principal: Principal;
  requestId?: string;
  /** Aborted when the client goes away: generation stops with it. */
  signal?: AbortSignal;
}

/** Where a completion is counted: a team (entity) and a project of it. */
export interface UsageAttribution {
  entity: string;
  project: string;
}

/** One checkpoint completion while it runs; becomes its usage event. */
export interface CompletionExchange {
  caller: ChatCaller;
  started: number;
  createdAt: Date;
  stream: boolean;
  model: string;
  endUser: string | null;
  attribution: UsageAttribution;
  lease?: Lease;
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens?: number };
  firstTokenMs?: number;
  finished?: boolean;
}

/**
 * The accounting every path to a model goes through, on training's side: admission under the platform's model
 * limiter (the same instance inference's chat completions use in this process; 429 with Retry-After over a limit)
 * and one usage record per request for inference's usage accounting, handed over as a platform event
 * (`training.chat_completion`): training never writes inference's tables.
 */
export class CompletionAccounting {
  constructor(
    private readonly limiter: ModelLimiter,
    private readonly events: UsageEventPublisher,
    private readonly logger: Logger,
  ) {}

  /** Starts the exchange, counted against the caller's default project until `admit` names the real one. */
  open(caller: ChatCaller, raw: unknown, stream: boolean): CompletionExchange {
    const body = raw as { model?: unknown; user?: unknown } | null | undefined;
    return {
      caller,
      started: performance.now(),
      createdAt: new Date(),
      stream,
      model: typeof body?.model === 'string' ? body.model.slice(0, 512) : '',
      endUser: typeof body?.user === 'string' ? body.user.slice(0, 512) : null,
      attribution: { entity: caller.principal.defaultEntity, project: DEFAULT_USAGE_PROJECT },
    };
  }

  /** Counts the request in `attribution` and admits it under the per-key and per-project limits (or throws 429). */
  async admit(exchange: CompletionExchange, attribution: UsageAttribution): Promise<void> {
    exchange.attribution = attribution;
    exchange.lease = await this.limiter.acquire(exchange.caller.principal.apiKeyId, `${attribution.entity}/${attribution.project}`);
  }

  /** Releases the admission and records the outcome (once; later calls do nothing). */
  finish(exchange: CompletionExchange, error?: unknown): void {
    if (exchange.finished) return;
    exchange.finished = true;
    exchange.lease?.release();
    const failure = error === undefined ? undefined : error instanceof TrellisError ? error : undefined;
    if (error !== undefined && !failure) this.logger.error({ err: error }, 'training chat completion failed unexpectedly');
    const { usage, caller } = exchange;
    const payload: TrainingChatCompletionPayload = {
      created_at: exchange.createdAt.toISOString(),
      model: exchange.model,
      api_key_id: caller.principal.apiKeyId,
      user_id: caller.principal.userId,
      end_user: exchange.endUser,
      stream: exchange.stream,
      status: error === undefined ? 200 : (failure?.status ?? 500),
      error_code: error === undefined ? null : (failure?.code ?? 'INTERNAL'),
      error_message: error === undefined ? null : (failure?.message ?? 'Internal server error').slice(0, 1000),
      prompt_tokens: usage?.prompt_tokens ?? 0,
      completion_tokens: usage?.completion_tokens ?? 0,
      total_tokens: usage?.total_tokens ?? (usage ? usage.prompt_tokens + usage.completion_tokens : 0),
      latency_ms: performance.now() - exchange.started,
      first_token_ms: exchange.firstTokenMs ?? null,
      request_id: caller.requestId ?? null,
    };
    this.events.publish({
      type: TRAINING_CHAT_COMPLETION_EVENT,
      entity: exchange.attribution.entity,
      project: exchange.attribution.project,
      author: caller.principal.username,
      payload: payload as unknown as Record<string, unknown>,
    });
  }
}

const BATCH_SIZE = 500;
/** Beyond this many unwritten events (database down for long) the oldest are dropped, loudly. */
const MAX_BUFFERED = 100_000;

/**
 * Writes usage events off the request's path: `publish()` only appends; everything appended meanwhile is written
 * in one transaction on the next turn of the event loop. A failed write keeps the events and is retried every
 * `retryMs`; `close()` writes what is left, so a served completion is not lost on a graceful shutdown.
 */
export class UsageEventPublisher {
  private buffer: NewPlatformEvent[] = [];
  private scheduled = false;
  private writing: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly db: Kysely<any>,
    private readonly logger: Logger,
    retryMs = 1_000,
  ) {
    this.timer = setInterval(() => {
      if (this.buffer.length > 0) void this.flush();
    }, retryMs);
    this.timer.unref();
  }

  publish(event: NewPlatformEvent): void {
    this.buffer.push(event);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  /** Writes everything appended so far; resolves when written (or failed and kept). */
  flush(): Promise<void> {
    this.writing = this.writing.then(() => this.write());
    return this.writing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    for (let attempt = 0; attempt < 3 && this.buffer.length > 0; attempt++) await this.flush();
    if (this.buffer.length > 0) this.logger.error({ lost: this.buffer.length }, 'training usage events could not be written before shutdown');
  }

  private async write(): Promise<void> {
    while (this.buffer.length > 0) {
      const batch = this.buffer.splice(0, BATCH_SIZE);
      try {
        await this.db.transaction().execute(async (trx) => {
          for (const event of batch) await publishEvent(trx, event);
        });
      } catch (error) {
        this.buffer.unshift(...batch);
        if (this.buffer.length > MAX_BUFFERED) {
          const dropped = this.buffer.splice(0, this.buffer.length - MAX_BUFFERED);
          this.logger.error({ dropped: dropped.length }, 'training usage event buffer full: dropped the oldest events');
        }
        this.logger.warn({ err: error, pending: this.buffer.length }, 'writing training usage events failed; will retry');
        return;
      }
    }
  }
}
