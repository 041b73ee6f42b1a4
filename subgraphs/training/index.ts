import type { Kysely } from 'kysely';
import { passThroughReference } from '../../platform/graphql/entity-refs.js';
import { defineSubgraph } from '../../platform/subgraph.js';
import type { TrainingDatabase } from './db/database.js';
import { trainingMigrations } from './db/migrations/index.js';
import { Project, TrainingProjectResolver } from './project/project.resolver.js';
import type { TrainingServices } from './services.js';
import { TrainingStore } from './store.js';

/** Family C: trainable models, checkpoints, RL and SFT training jobs with event streams. */
export const trainingSubgraph = defineSubgraph<TrainingServices>({
  name: 'training',
  migrations: trainingMigrations,
  resolvers: [TrainingProjectResolver],
  orphanedTypes: [Project],
  createServices: ({ store }) => ({ store: new TrainingStore(store as Kysely<TrainingDatabase>) }),
  references: () => ({ Project: passThroughReference }),
});
