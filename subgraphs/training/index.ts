import type { Kysely } from 'kysely';
import { requirePrincipal } from '../../platform/auth/authorize.js';
import { withMigrationLock } from '../../platform/db/migrate.js';
import { migrateEvents } from '../../platform/events/index.js';
import { passThroughReference } from '../../platform/graphql/entity-refs.js';
import { defineSubgraph } from '../../platform/subgraph.js';
import type { TrainingDatabase } from './db/database.js';
import { trainingMigrations } from './db/migrations/index.js';
import { AT_REQUEST, TrainingChatCompletionInput } from './chat/chat-completion.input.js';
import { CheckpointChatResolver } from './chat/checkpoint-chat.resolver.js';
import { CheckpointChatService } from './chat/checkpoint-chat.service.js';
import { CompletionAccounting, UsageEventPublisher } from './chat/completion-accounting.js';
import { createModelLimiter } from '../../platform/model-access/limits.js';
import { TrainingHealthResolver } from './health/health.resolver.js';
import { migrateJobQueue } from './job/job-queue.js';
import { TrainingJobResolver } from './job/job.resolver.js';
import { TrainingJobRunner } from './job/job-runner.js';
import { TrainingQueueWorker } from './job/training-worker.js';
import { TrainingModelResolver } from './model/model.resolver.js';
import { Project, TrainingProjectResolver } from './project/project.resolver.js';
import type { TrainingServices } from './services.js';
import { TrainingStore } from './store.js';
import { SftDatasetResolver } from './sft/dataset-resolver.js';
import { UnavailableGraph } from '../../platform/graphql/platform-graph.js';
import { EmbeddedTrainer } from './trainer/embedded-trainer.js';
import { RemoteTrainer } from './trainer/remote-trainer.js';
import { RemoteWorkerResolver } from './remote/remote-worker.resolver.js';
import { RemoteWorkerService } from './remote/remote-worker.service.js';
import { loadTrainingConfig } from './training-config.js';
import { TrainingService } from './training-service.js';
import { CheckpointPromotionService } from './promotion/checkpoint-promotion.service.js';
import { TraceDatasetExporter } from './sft/trace-dataset-export.js';
import { SftFromDatasetResolver } from './sft/sft-from-dataset.resolver.js';

/** Family C: trainable models, checkpoints, RL and SFT training jobs with event streams. */
export const trainingSubgraph = defineSubgraph<TrainingServices>({
  name: 'training',
  migrations: trainingMigrations,
  resolvers: [TrainingProjectResolver, TrainingModelResolver, TrainingJobResolver, TrainingHealthResolver, CheckpointChatResolver, RemoteWorkerResolver, SftFromDatasetResolver],
  orphanedTypes: [Project],
  createServices: ({ store, config, logger, graph, modelLimiter }) => {
    const trainingStore = new TrainingStore(store as Kysely<TrainingDatabase>);
    const trainingConfig = loadTrainingConfig(config);
    const db = store as Kysely<TrainingDatabase>;
    const backend = trainingConfig.backend === 'remote' ? new RemoteTrainer(db, trainingConfig) : new EmbeddedTrainer(trainingConfig.concurrency);
    const runner = new TrainingJobRunner(trainingStore, backend, trainingConfig, logger);
    const usageEvents = new UsageEventPublisher(db, logger);
    // SFT datasets are read from the registry through the graph, as the submitting caller.
    const platformGraph = graph ?? new UnavailableGraph();
    const training = new TrainingService(trainingStore, new SftDatasetResolver(platformGraph), trainingConfig.trainableBaseModels);
    return {
      store: trainingStore,
      training,
      promotion: new CheckpointPromotionService(trainingStore, training),
      datasetExport: new TraceDatasetExporter(platformGraph),
      config: trainingConfig,
      runner,
      // Checkpoint completions are admitted by the process's model limiter (shared with inference) and counted in
      // inference's usage through `training.chat_completion` events.
      chat: new CheckpointChatService(
        trainingStore,
        trainingConfig.inferenceWorkers,
        new CompletionAccounting(modelLimiter ?? createModelLimiter(config), usageEvents, logger),
      ),
      remote: new RemoteWorkerService(db, trainingStore),
      usageEvents,
    };
  },
  // The queue's own schema (graphile_worker) must exist before the first job is created, in every process.
  onStart: async (_services, { db, logger }) => {
    await migrateEvents(db.root); // the outbox that checkpoints and runs are published through
    await withMigrationLock(db.root, () => migrateJobQueue(db.pool, logger));
  },
  workers: (services, { db, logger }) => [new TrainingQueueWorker(db.pool, services.store, services.runner, services.config, logger)],
  onStop: async (services) => {
    await services.runner.close();
    await services.chat.close();
    await services.usageEvents.close();
  },
  subscriptions: ({ chat }) => ({
    trainingChatCompletionChunks: (args, context) => {
      const caller = { principal: requirePrincipal(context), requestId: context.requestId, signal: context.signal };
      return TrainingChatCompletionInput.handle(args.request, AT_REQUEST, (wire) => chat.stream(caller, wire));
    },
  }),
  references: () => ({ Project: passThroughReference }),
});
