import { defineSubgraph } from '../../platform/subgraph.js';
import { isTeamMember } from '../../platform/auth/principal.js';
import { ApiKeyResolver } from './api-key/api-key.resolver.js';
import { Authenticator } from './authenticator.js';
import type { IdentityDatabase } from './db/database.js';
import { identityMigrations } from './db/migrations/index.js';
import { IdentityService } from './identity-service.js';
import { toProject } from './project/project.type.js';
import { ProjectResolver } from './project/project.resolver.js';
import type { IdentityServices } from './services.js';
import { TeamResolver, toTeam } from './team/team.resolver.js';
import { UserResolver, toUser } from './user/user.resolver.js';

/** Users, teams (entities), projects, roles and API keys; owns the User, Team and Project entities. */
export const identitySubgraph = defineSubgraph<IdentityServices>({
  name: 'identity',
  migrations: identityMigrations,
  resolvers: [UserResolver, TeamResolver, ProjectResolver, ApiKeyResolver],
  createServices: ({ store, logger }) => {
    const db = store as import('kysely').Kysely<IdentityDatabase>;
    const authenticator = new Authenticator(db);
    const identity = new IdentityService(db, logger, async (userIds, seq) => {
      authenticator.invalidateUsers(userIds);
      await authenticator.awaitFollowers(seq);
    });
    return { identity, authenticator };
  },
  references: ({ identity }) => ({
    User: async (ref) => {
      const row = await identity.user(String(ref.id));
      return row ? toUser(row) : null;
    },
    Team: async (ref, context) => {
      if (!context.principal || !isTeamMember(context.principal, String(ref.name))) return null;
      const row = await identity.team(String(ref.name));
      return row ? toTeam(row) : null;
    },
    Project: async (ref, context) => {
      if (!context.principal || !isTeamMember(context.principal, String(ref.entity))) return null;
      const row = await identity.project(String(ref.entity), String(ref.name));
      return row ? toProject(row) : null;
    },
  }),
  onStart: async ({ identity, authenticator }, { config, db, logger }) => {
    if (config.bootstrap) await identity.bootstrap(config.bootstrap);
    // Changes made by other processes (another replica, the CLI) reach this process's cached principals at once.
    await authenticator.followChanges(String(db.pool.options.connectionString), logger);
  },
  onStop: ({ authenticator }) => authenticator.close(),
});
