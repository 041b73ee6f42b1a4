import type { Kysely } from 'kysely';
import { passThroughReference } from '../../platform/graphql/entity-refs.js';
import { defineSubgraph } from '../../platform/subgraph.js';
import type { AutomationsDatabase } from './db/database.js';
import { automationsMigrations } from './db/migrations/index.js';
import type { AutomationsServices } from './services.js';
import { AutomationsStore } from './store.js';
import { AutomationsTeamResolver, Team } from './team/team.resolver.js';

/** Family D: team secrets, webhooks, automations over platform events, and signed deliveries. */
export const automationsSubgraph = defineSubgraph<AutomationsServices>({
  name: 'automations',
  migrations: automationsMigrations,
  resolvers: [AutomationsTeamResolver],
  orphanedTypes: [Team],
  createServices: ({ store }) => ({ store: new AutomationsStore(store as Kysely<AutomationsDatabase>) }),
  references: () => ({ Team: passThroughReference }),
});
