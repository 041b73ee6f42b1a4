import type { Kysely } from 'kysely';
import { passThroughReference } from '../../platform/graphql/entity-refs.js';
import { migrateEvents, PlatformEventStream } from '../../platform/events/index.js';
import { defineSubgraph } from '../../platform/subgraph.js';
import { InferenceCallRecorder } from './inference-calls/inference-call-recorder.js';
import { CallResolver } from './call/call.resolver.js';
import { CallService } from './call/call.service.js';
import type { TracingDatabase } from './db/database.js';
import { tracingMigrations } from './db/migrations/index.js';
import { EvaluationProjectResolver } from './evaluation/evaluation.resolver.js';
import { EvaluationService } from './evaluation/evaluation.service.js';
import { FeedbackResolver } from './feedback/feedback.resolver.js';
import { FeedbackService } from './feedback/feedback.service.js';
import { ObjectResolver } from './object/object.resolver.js';
import { ObjectService } from './object/object.service.js';
import { Project, TracingProjectResolver } from './project/project.resolver.js';
import { ScoreResolver } from './score/score.resolver.js';
import { ScoreService } from './score/score.service.js';
import type { TracingServices } from './services.js';

/** Family A: calls (traces), objects, tables, files, scores and feedback, for dashboards and the Weave SDKs. */
export const tracingSubgraph = defineSubgraph<TracingServices>({
  name: 'tracing',
  migrations: tracingMigrations,
  resolvers: [TracingProjectResolver, EvaluationProjectResolver, CallResolver, ObjectResolver, FeedbackResolver, ScoreResolver],
  orphanedTypes: [Project],
  createServices: async ({ store, db: connection, logger }) => {
    await migrateEvents(connection.root);
    const db = store as Kysely<TracingDatabase>;
    const calls = new CallService(db);
    const feedback = new FeedbackService(db, connection.pool);
    const events = new PlatformEventStream(connection.root, String(connection.pool.options.connectionString), logger);
    return { calls, feedback, objects: new ObjectService(db), scores: new ScoreService(db, calls, feedback), evaluations: new EvaluationService(db), events, db };
  },
  references: () => ({ Project: passThroughReference }),
  // Family B's completions for a named project arrive as platform events and become calls here.
  workers: ({ db, events }, { logger }) => [new InferenceCallRecorder(db, events, logger.child({ worker: 'inference-calls' }))],
  onStop: async ({ events }) => {
    await events.close();
  },
});
