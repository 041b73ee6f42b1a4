import type { Kysely } from 'kysely';
import { requirePrincipal } from '../../platform/auth/authorize.js';
import { passThroughReference } from '../../platform/graphql/entity-refs.js';
import { createEventRetentionWorker, migrateEvents, NotificationListener, PlatformEventStream } from '../../platform/events/index.js';
import { createModelLimiter } from '../../platform/model-access/limits.js';
import { defineSubgraph } from '../../platform/subgraph.js';
import { publishCompletionEvents } from './tracing/publish-completion-events.js';
import { ModelRuntimeAdapter } from './backends/embedded/model-runtime-adapter.js';
import type { BackgroundWorker } from '../../platform/subgraph.js';
import { ChatResolver } from './chat/chat.resolver.js';
import { ChatService } from './chat/chat.service.js';
import { PromotedCheckpoints } from './checkpoints/promoted-checkpoints.js';
import { UnavailableGraph } from '../../platform/graphql/platform-graph.js';
import { EmbeddingsResolver } from './embeddings/embeddings.resolver.js';
import { EmbeddingsService } from './embeddings/embeddings.service.js';
import { ResponsesResolver } from './responses/responses.resolver.js';
import { toChatRequest, toResponseEvents } from './responses/responses-translation.js';
import { CHAT_REQUEST_AT, ChatCompletionRequestInput } from './chat/chat.inputs.js';
import { toChatCompletionChunkObjects } from './chat/chat-completion.type.js';
import { ModelCatalog } from './catalog/model-catalog.js';
import { ModelResolver } from './catalog/model.resolver.js';
import type { EmbeddedModelRuntime } from './backends/embedded/embedded-runtime.js';
import type { InferenceDatabase } from './db/database.js';
import { inferenceMigrations } from './db/migrations/index.js';
import { loadInferenceConfig } from './inference-config.js';
import type { InferenceServices } from './services.js';
import type { CompletionTraceSink } from './tracing/completion-trace.js';
import { TraceSettings } from './tracing/trace-settings.js';
import { TraceSettingsResolver } from './tracing/trace-settings.resolver.js';
import { TrainingUsageRecorder } from './usage/training-usage-recorder.js';
import { UsageRecorder } from './usage/usage-recorder.js';
import { createUsageRetentionWorker } from './usage/usage-retention.js';
import { UsageQueries } from './usage/usage-queries.js';
import { Project, ProjectUsageResolver, Team, TeamUsageResolver } from './usage/usage.resolver.js';
import { loadModelPricesFile } from './pricing/prices-file.js';
import { PriceTable } from './pricing/price-table.js';
import { ModelPriceResolver, ModelTokenUsageCostResolver, TokenUsageCostResolver } from './pricing/token-cost.resolver.js';
import { ModelTokenUsageCost, TokenUsageCost } from './pricing/token-cost.type.js';

export interface InferenceSubgraphOptions {
  /** The in-process model runtime behind `embedded` catalog models (absent: such models cannot be served). */
  embeddedRuntime?: (env: NodeJS.ProcessEnv) => EmbeddedModelRuntime | undefined | Promise<EmbeddedModelRuntime | undefined>;
  /**
   * Where completions of requests that name a project go as Family A calls (absent: not traced). The platform
   * binds it to its event outbox; the tracing subgraph turns the events into calls.
   */
  traceSink?: CompletionTraceSink;
}

/** Family B: OpenAI-compatible chat completions (also as the Responses API), embeddings and model listing, with usage per team and project. */
export const defineInferenceSubgraph = (options: InferenceSubgraphOptions = {}) => defineSubgraph<InferenceServices>({
  name: 'inference',
  migrations: inferenceMigrations,
  resolvers: [ChatResolver, ResponsesResolver, EmbeddingsResolver, ModelResolver, ProjectUsageResolver, TeamUsageResolver, TraceSettingsResolver, ModelTokenUsageCostResolver, TokenUsageCostResolver, ModelPriceResolver],
  orphanedTypes: [Project, Team, ModelTokenUsageCost, TokenUsageCost],
  createServices: async ({ store, db: connection, config: platformConfig, logger, modelLimiter, graph }) => {
    // Traced completions are published as platform events (see tracing/publish-completion-events.ts), and the
    // training subgraph's completions arrive as platform events to be counted in usage.
    await migrateEvents(connection.root);
    const db = store as Kysely<InferenceDatabase>;
    const config = loadInferenceConfig(platformConfig);
    const embeddedRuntime = await options.embeddedRuntime?.(platformConfig.env);
    // One LISTEN connection for the subgraph: platform events, and catalog and trace-setting changes made by any
    // process (applied at their commit, not at the next poll).
    const listener = new NotificationListener(String(connection.pool.options.connectionString), logger);
    const catalog = new ModelCatalog(db, config, platformConfig.env, logger, listener, embeddedRuntime);
    // The price table lives with the catalog, whose models may carry their own pricing.
    const prices = new PriceTable((id) => catalog.find(id)?.definition, loadModelPricesFile(config.modelPricesFile));
    const usage = new UsageRecorder(db, logger, config.usageFlushMs, options.traceSink);
    const traceSettings = new TraceSettings(db, listener, config.catalogRefreshMs, logger);
    // The process's model limiter, shared with training's checkpoint completions (platform/model-access).
    const limiter = modelLimiter ?? createModelLimiter(platformConfig);
    // Training checkpoints are served under their registry name, read through the graph as the caller.
    const checkpoints = new PromotedCheckpoints(graph ?? new UnavailableGraph(), embeddedRuntime);
    const chat = new ChatService(catalog, limiter, usage, traceSettings, logger, checkpoints);
    const embeddings = new EmbeddingsService(catalog, limiter, usage, logger);
    const events = new PlatformEventStream(connection.root, listener, logger);
    const usageRetention = createUsageRetentionWorker(db, config.usageRetentionDays, platformConfig, logger.child({ worker: 'usage-retention' }));
    const eventRetention = createEventRetentionWorker(connection.root, platformConfig, logger.child({ worker: 'event-retention' }));
    return { config, catalog, prices, chat, checkpoints, embeddings, usage, traceSettings, usageQueries: new UsageQueries(db, prices), embeddedRuntime, events, listener, db, usageRetention, eventRetention };
  },
  onStart: async ({ catalog, traceSettings }) => {
    await catalog.start();
    await traceSettings.start();
  },
  onStop: async ({ events, listener }) => {
    await events.close();
    await listener.close();
  },
  // Token usage arrives from tracing as entities whose keys hold every count (pricing/token-cost.type.ts).
  references: () => ({ Project: passThroughReference, Team: passThroughReference, ModelTokenUsage: passThroughReference, TokenUsage: passThroughReference }),
  subscriptions: ({ chat }) => ({
    chatCompletionChunks: (args, context) => {
      const principal = requirePrincipal(context);
      const caller = { principal, project: (args.project as string | null | undefined) ?? null, requestId: context.requestId, signal: context.signal };
      // Bound sources yield the field's values as they are: the typed chunks.
      return ChatCompletionRequestInput.handle(args.request, CHAT_REQUEST_AT, async (wire) => toChatCompletionChunkObjects(await chat.stream(wire, caller)));
    },
    // The OpenAI wire protocol (the REST route's SSE): the body as it came.
    openaiChatCompletionChunks: (args, context) => {
      const principal = requirePrincipal(context);
      return chat.stream(args.body, {
        principal,
        project: (args.project as string | null | undefined) ?? null,
        requestId: context.requestId,
        signal: context.signal,
      });
    },
    // The Responses API streamed (POST /inference/v1/responses with stream: true): the chat stream, translated.
    openaiResponseEvents: async (args, context) => {
      const principal = requirePrincipal(context);
      const caller = { principal, project: (args.project as string | null | undefined) ?? null, requestId: context.requestId, signal: context.signal };
      return toResponseEvents(args.body, await chat.stream(args.body, caller, toChatRequest));
    },
  }),
  workers: ({ usage, catalog, traceSettings, embeddedRuntime, events, db, usageRetention, eventRetention }, { logger }): BackgroundWorker[] => [
    usage,
    new TrainingUsageRecorder(db, events, logger.child({ worker: 'training-usage' })),
    usageRetention,
    eventRetention,
    {
      name: 'inference-catalog',
      start: () => undefined,
      stop: async () => {
        traceSettings.stop();
        await catalog.close();
        await embeddedRuntime?.close?.();
      },
    },
  ],
});

/**
 * The platform's inference subgraph: the shipped model served by the embedded runtime (so a fresh install answers
 * offline; TRELLIS_EMBEDDED_MODEL=off disables it), completions traced into Family A through platform events.
 */
export const inferenceSubgraph = defineInferenceSubgraph({
  embeddedRuntime: (env) => (env.TRELLIS_EMBEDDED_MODEL === 'off' ? undefined : new ModelRuntimeAdapter()),
  traceSink: publishCompletionEvents,
});
