import type { Kysely } from 'kysely';
import type { RetentionWorker } from '../../platform/db/retention-worker.js';
import type { NotificationListener, PlatformEventStream } from '../../platform/events/index.js';
import type { InferenceDatabase } from './db/database.js';
import type { EmbeddedModelRuntime } from './backends/embedded/embedded-runtime.js';
import type { ChatService } from './chat/chat.service.js';
import type { PromotedCheckpoints } from './checkpoints/promoted-checkpoints.js';
import type { EmbeddingsService } from './embeddings/embeddings.service.js';
import type { ModelCatalog } from './catalog/model-catalog.js';
import type { PriceTable } from './pricing/price-table.js';
import type { InferenceConfig } from './inference-config.js';
import type { TraceSettings } from './tracing/trace-settings.js';
import type { UsageRecorder } from './usage/usage-recorder.js';
import type { UsageQueries } from './usage/usage-queries.js';

export interface InferenceServices {
  config: InferenceConfig;
  catalog: ModelCatalog;
  /** Model prices: catalog pricing, TRELLIS_MODEL_PRICES_FILE, the shipped table (pricing/). */
  prices: PriceTable;
  chat: ChatService;
  /** Training checkpoints served under their registry name (`{entity}/{project}/{model}:{alias}`). */
  checkpoints: PromotedCheckpoints;
  embeddings: EmbeddingsService;
  usage: UsageRecorder;
  traceSettings: TraceSettings;
  usageQueries: UsageQueries;
  /** The in-process model runtime behind `embedded` models, when one is bound. */
  embeddedRuntime: EmbeddedModelRuntime | undefined;
  /** Platform events: the training subgraph's completions arrive here to be counted in usage. */
  events: PlatformEventStream;
  /** This process's LISTEN connection for the subgraph (platform events, catalog and trace-setting changes). */
  listener: NotificationListener;
  db: Kysely<InferenceDatabase>;
  /** Deletes usage records past TRELLIS_USAGE_RETENTION_DAYS (a background worker). */
  usageRetention: RetentionWorker;
  /**
   * Deletes platform events past TRELLIS_EVENT_RETENTION_DAYS and the traced completions' events once recorded (a
   * background worker). The event log is the platform's; inference runs its retention because it publishes most of it.
   */
  eventRetention: RetentionWorker;
}
