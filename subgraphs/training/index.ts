import type { Kysely } from 'kysely';
import { passThroughReference } from '../../platform/graphql/entity-refs.js';
import { defineSubgraph } from '../../platform/subgraph.js';
import type { TrainingDatabase } from './db/database.js';
import { trainingMigrations } from './db/migrations/index.js';
import { TrainingHealthResolver } from './health/health.resolver.js';
import { TrainingJobResolver } from './job/job.resolver.js';
import { TrainingModelResolver } from './model/model.resolver.js';
import { Project, TrainingProjectResolver } from './project/project.resolver.js';
import type { TrainingServices } from './services.js';
import { TrainingStore } from './store.js';
import { TrainingService } from './training-service.js';

/** Family C: trainable models, checkpoints, RL and SFT training jobs with event streams. */
export const trainingSubgraph = defineSubgraph<TrainingServices>({
  name: 'training',
  migrations: trainingMigrations,
  resolvers: [TrainingProjectResolver, TrainingModelResolver, TrainingJobResolver, TrainingHealthResolver],
  orphanedTypes: [Project],
  createServices: ({ store }) => {
    const trainingStore = new TrainingStore(store as Kysely<TrainingDatabase>);
    return { store: trainingStore, training: new TrainingService(trainingStore) };
  },
  references: () => ({ Project: passThroughReference }),
});
