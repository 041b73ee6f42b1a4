import type { Kysely } from 'kysely';
import { passThroughReference } from '../../platform/graphql/entity-refs.js';
import { defineSubgraph } from '../../platform/subgraph.js';
import type { InferenceDatabase } from './db/database.js';
import { inferenceMigrations } from './db/migrations/index.js';
import { Project, InferenceProjectResolver } from './project/project.resolver.js';
import type { InferenceServices } from './services.js';
import { InferenceStore } from './store.js';

/** Family B: OpenAI-compatible chat completions and model listing, with usage per team and project. */
export const inferenceSubgraph = defineSubgraph<InferenceServices>({
  name: 'inference',
  migrations: inferenceMigrations,
  resolvers: [InferenceProjectResolver],
  orphanedTypes: [Project],
  createServices: ({ store }) => ({ store: new InferenceStore(store as Kysely<InferenceDatabase>) }),
  references: () => ({ Project: passThroughReference }),
});
