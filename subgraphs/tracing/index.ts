import type { Kysely } from 'kysely';
import { passThroughReference } from '../../platform/graphql/entity-refs.js';
import { UnavailableGraph } from '../../platform/graphql/platform-graph.js';
import { migrateEvents, NotificationListener, PlatformEventStream } from '../../platform/events/index.js';
import { RetentionWorker } from '../../platform/db/retention-worker.js';
import { defineSubgraph } from '../../platform/subgraph.js';
import { InferenceCallRecorder } from './inference-calls/inference-call-recorder.js';
import { CallResolver } from './call/call.resolver.js';
import { CallService } from './call/call.service.js';
import type { TracingDatabase } from './db/database.js';
import { tracingMigrations } from './db/migrations/index.js';
import { DatasetEvaluationResolver } from './dataset-evaluation/dataset-evaluation.resolver.js';
import { DatasetEvaluationService } from './dataset-evaluation/dataset-evaluation.service.js';
import { EvaluatedModels } from './dataset-evaluation/evaluated-models.js';
import { EvaluationRunner, runnerTiming } from './dataset-evaluation/evaluation-runner.js';
import { DatasetService } from './dataset/dataset.service.js';
import { EvaluationProjectResolver } from './evaluation/evaluation.resolver.js';
import { EvaluationService } from './evaluation/evaluation.service.js';
import { FeedbackResolver } from './feedback/feedback.resolver.js';
import { FeedbackService } from './feedback/feedback.service.js';
import { EndedCallsPublisher } from './monitor/ended-calls-publisher.js';
import { GraphJudge } from './monitor/llm-judge.js';
import { MonitorConsumer } from './monitor/monitor-consumer.js';
import { MonitorResolver } from './monitor/monitor.resolver.js';
import { MonitorService } from './monitor/monitor.service.js';
import { MonitoredProjects } from './monitor/monitored-projects.js';
import { ObjectResolver } from './object/object.resolver.js';
import { DatasetResolver } from './dataset/dataset.resolver.js';
import { ObjectService } from './object/object.service.js';
import { Project, TracingProjectResolver } from './project/project.resolver.js';
import { TraceRetentionResolver } from './retention/trace-retention.resolver.js';
import { TraceRetentionService } from './retention/trace-retention.service.js';
import { ScoreResolver } from './score/score.resolver.js';
import { ScoreService } from './score/score.service.js';
import type { TracingServices } from './services.js';
import { loadTracingConfig } from './tracing-config.js';
import { CallTokenUsageResolver, ProjectTokenUsageResolver } from './usage/token-usage.resolver.js';
import { TokenUsageService } from './usage/token-usage.service.js';
import { tokenUsageReferences } from './usage/token-usage.type.js';

/** Family A: calls (traces), objects, tables, files, scores and feedback, for dashboards and the Weave SDKs. */
export const tracingSubgraph = defineSubgraph<TracingServices>({
  name: 'tracing',
  migrations: tracingMigrations,
  resolvers: [TracingProjectResolver, EvaluationProjectResolver, CallResolver, ObjectResolver, FeedbackResolver, ScoreResolver, TraceRetentionResolver, CallTokenUsageResolver, ProjectTokenUsageResolver, MonitorResolver, DatasetResolver, DatasetEvaluationResolver],
  orphanedTypes: [Project],
  createServices: async ({ store, db: connection, config, logger, graph }) => {
    await migrateEvents(connection.root);
    const db = store as Kysely<TracingDatabase>;
    // One LISTEN connection for the event stream and the monitored projects' wake-ups.
    const listener = new NotificationListener(String(connection.pool.options.connectionString), logger);
    const monitoredProjects = new MonitoredProjects(db, logger.child({ component: 'monitored-projects' }));
    await monitoredProjects.start(listener);
    const endedCalls = new EndedCallsPublisher(monitoredProjects);
    const calls = new CallService(db, endedCalls);
    const feedback = new FeedbackService(db, connection.pool);
    const events = new PlatformEventStream(connection.root, listener, logger);
    // LLM judges ask catalog models through the inference family, via the graph (absent in tools).
    const judge = graph ? new GraphJudge(graph) : undefined;
    const objects = new ObjectService(db);
    const scores = new ScoreService(db, calls, feedback);
    const datasets = new DatasetService(db, objects, calls);
    // Evaluated models are asked through the graph as the caller (inference and training apply their own rules).
    const evaluatedModels = new EvaluatedModels(graph ?? new UnavailableGraph());
    const tracingConfig = loadTracingConfig(config);
    const evaluationRunner = new EvaluationRunner(db, scores, evaluatedModels, logger.child({ worker: 'dataset-evaluations' }), runnerTiming(tracingConfig.evaluationStaleSeconds));
    const traceRetention = new TraceRetentionService(db, tracingConfig.traceRetentionDays);
    const traceRetentionWorker = new RetentionWorker('tracing-trace-retention', () => traceRetention.passes(), config.retention, logger.child({ worker: 'trace-retention' }));
    return {
      calls,
      feedback,
      objects,
      scores,
      datasets,
      datasetEvaluations: new DatasetEvaluationService(datasets, objects, scores, evaluatedModels, evaluationRunner),
      evaluationRunner,
      evaluations: new EvaluationService(db),
      tokenUsage: new TokenUsageService(db),
      events,
      listener,
      monitoredProjects,
      endedCalls,
      judge,
      monitors: new MonitorService(db, monitoredProjects, judge),
      db,
      traceRetention,
      traceRetentionWorker,
    };
  },
  references: () => ({ Project: passThroughReference, ...tokenUsageReferences }),
  // Family B's completions for a named project arrive as platform events and become calls here.
  // Traces past their project's retention are deleted in the background.
  // Monitors score the calls of their projects as their ends are written.
  // Platform-run evaluations: a stopping process finishes its runs as errors; abandoned runs are swept.
  workers: ({ db, events, traceRetentionWorker, endedCalls, judge, evaluationRunner }, { logger }) => [
    new InferenceCallRecorder(db, events, logger.child({ worker: 'inference-calls' }), endedCalls),
    traceRetentionWorker,
    new MonitorConsumer(db, events, logger.child({ worker: 'monitors' }), judge),
    evaluationRunner,
  ],
  onStop: async ({ events, listener, monitoredProjects }) => {
    monitoredProjects.stop();
    await events.close();
    await listener.close();
  },
});
