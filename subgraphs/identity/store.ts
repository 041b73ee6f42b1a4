import { sql, type Kysely, type Transaction } from 'kysely';
import type { TeamRole } from '../../platform/auth/principal.js';
import { PRINCIPAL_CHANGED_CHANNEL } from '../../platform/events/contracts.js';
import type { IdentityDatabase, ResourceKind } from './db/database.js';

/** Kysely queries of the identity schema; no authorization or validation here (see identity-service.ts). */
export type IdentityDb = Kysely<IdentityDatabase> | Transaction<IdentityDatabase>;

export interface UserRow {
  id: string;
  username: string;
  email: string | null;
  isAdmin: boolean;
  defaultEntity: string | null;
  createdAt: Date;
}
export interface TeamRow {
  id: string;
  name: string;
  createdAt: Date;
}
export interface ProjectRow {
  id: string;
  entity: string;
  name: string;
  createdAt: Date;
}
export interface ApiKeyRow {
  id: string;
  userId: string;
  name: string;
  displayPrefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

function userQuery(db: IdentityDb) {
  return db
    .selectFrom('users')
    .leftJoin('teams', 'teams.id', 'users.default_team_id')
    .select([
      'users.id',
      'users.username',
      'users.email',
      'users.is_admin as isAdmin',
      'teams.name as defaultEntity',
      'users.created_at as createdAt',
    ]);
}

export const identityStore = {
  countUsers: async (db: IdentityDb) =>
    Number((await db.selectFrom('users').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n),

  userById: (db: IdentityDb, id: string): Promise<UserRow | undefined> =>
    userQuery(db).where('users.id', '=', id).executeTakeFirst(),

  userByUsername: (db: IdentityDb, username: string): Promise<UserRow | undefined> =>
    userQuery(db).where('users.username', '=', username).executeTakeFirst(),

  insertUser: async (db: IdentityDb, user: { username: string; email: string | null; isAdmin: boolean }) =>
    (
      await db
        .insertInto('users')
        .values({ username: user.username, email: user.email, is_admin: user.isAdmin })
        // Any unique index: the exact name, or the name ignoring case.
        .onConflict((oc) => oc.doNothing())
        .returning('id')
        .executeTakeFirst()
    )?.id,

  setDefaultTeam: (db: IdentityDb, userId: string, teamId: string) =>
    db.updateTable('users').set({ default_team_id: teamId }).where('id', '=', userId).execute(),

  /** Who holds an entity name, ignoring case: the user of that name, else the team. */
  entityNameHolder: async (db: IdentityDb, name: string): Promise<{ kind: 'user' | 'team'; name: string } | undefined> => {
    const user = await db.selectFrom('users').select('username').where(sql<string>`lower(username)`, '=', sql<string>`lower(${name})`).executeTakeFirst();
    if (user) return { kind: 'user', name: user.username };
    const team = await db.selectFrom('teams').select('name').where(sql<string>`lower(name)`, '=', sql<string>`lower(${name})`).executeTakeFirst();
    return team ? { kind: 'team', name: team.name } : undefined;
  },

  teamByName: (db: IdentityDb, name: string): Promise<TeamRow | undefined> =>
    db.selectFrom('teams').select(['id', 'name', 'created_at as createdAt']).where('name', '=', name).executeTakeFirst(),

  insertTeam: async (db: IdentityDb, name: string) =>
    (
      await db
        .insertInto('teams')
        .values({ name })
        // Any unique index: the exact name, or the name ignoring case (users' personal teams hold their names too).
        .onConflict((oc) => oc.doNothing())
        .returning('id')
        .executeTakeFirst()
    )?.id,

  upsertMembership: (db: IdentityDb, teamId: string, userId: string, role: TeamRole) =>
    db
      .insertInto('memberships')
      .values({ team_id: teamId, user_id: userId, role })
      .onConflict((oc) => oc.columns(['team_id', 'user_id']).doUpdateSet({ role }))
      .execute(),

  /** Serializes membership changes of one team (held until the transaction ends), so admin counts stay true. */
  lockTeamMemberships: (db: IdentityDb, teamId: string) => db.selectFrom('teams').select('id').where('id', '=', teamId).forUpdate().execute(),

  countTeamAdmins: async (db: IdentityDb, teamId: string) =>
    Number(
      (
        await db
          .selectFrom('memberships')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('team_id', '=', teamId)
          .where('role', '=', 'ADMIN')
          .executeTakeFirstOrThrow()
      ).n,
    ),

  removeMembership: (db: IdentityDb, teamId: string, userId: string) =>
    db.deleteFrom('memberships').where('team_id', '=', teamId).where('user_id', '=', userId).executeTakeFirst(),

  membersOfTeam: (db: IdentityDb, teamId: string) =>
    db
      .selectFrom('memberships')
      .innerJoin('users', 'users.id', 'memberships.user_id')
      .select(['users.id as userId', 'users.username', 'memberships.role'])
      .where('memberships.team_id', '=', teamId)
      .orderBy('users.username')
      .execute(),

  teamsOfUser: (db: IdentityDb, userId: string) =>
    db
      .selectFrom('memberships')
      .innerJoin('teams', 'teams.id', 'memberships.team_id')
      .select(['teams.name', 'memberships.role'])
      .where('memberships.user_id', '=', userId)
      .orderBy('teams.name')
      .execute(),

  resourceRolesOfUser: (db: IdentityDb, userId: string) =>
    db
      .selectFrom('resource_roles')
      .innerJoin('teams', 'teams.id', 'resource_roles.team_id')
      .select(['teams.name as entity', 'resource_roles.resource_kind as kind', 'resource_roles.resource_name as name'])
      .where('resource_roles.user_id', '=', userId)
      .execute(),

  grantResourceAdmin: (db: IdentityDb, userId: string, teamId: string, kind: ResourceKind, name: string) =>
    db
      .insertInto('resource_roles')
      .values({ user_id: userId, team_id: teamId, resource_kind: kind, resource_name: name, role: 'ADMIN' })
      .onConflict((oc) => oc.doNothing())
      .execute(),

  projectDescription: async (db: IdentityDb, projectId: string): Promise<string | null> =>
    (await db.selectFrom('projects').select('description').where('id', '=', projectId).executeTakeFirst())?.description ?? null,

  setProjectDescription: (db: IdentityDb, projectId: string, description: string | null) =>
    db.updateTable('projects').set({ description }).where('id', '=', projectId).execute(),

  projectByName: (db: IdentityDb, entity: string, name: string): Promise<ProjectRow | undefined> =>
    db
      .selectFrom('projects')
      .innerJoin('teams', 'teams.id', 'projects.team_id')
      .select(['projects.id', 'teams.name as entity', 'projects.name', 'projects.created_at as createdAt'])
      .where('teams.name', '=', entity)
      .where('projects.name', '=', name)
      .executeTakeFirst(),

  projectsOfTeam: (db: IdentityDb, teamId: string): Promise<ProjectRow[]> =>
    db
      .selectFrom('projects')
      .innerJoin('teams', 'teams.id', 'projects.team_id')
      .select(['projects.id', 'teams.name as entity', 'projects.name', 'projects.created_at as createdAt'])
      .where('projects.team_id', '=', teamId)
      .orderBy('projects.name')
      .execute(),

  /** Idempotent: concurrent first writes to one project create it once. */
  ensureProject: (db: IdentityDb, teamId: string, name: string) =>
    db
      .insertInto('projects')
      .values({ team_id: teamId, name })
      .onConflict((oc) => oc.columns(['team_id', 'name']).doNothing())
      .execute(),

  insertApiKey: async (db: IdentityDb, key: { userId: string; name: string; displayPrefix: string; keyHash: string }) =>
    (
      await db
        .insertInto('api_keys')
        .values({ user_id: key.userId, name: key.name, display_prefix: key.displayPrefix, key_hash: key.keyHash })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id,

  apiKeysOfUser: (db: IdentityDb, userId: string): Promise<ApiKeyRow[]> =>
    db
      .selectFrom('api_keys')
      .select([
        'id',
        'user_id as userId',
        'name',
        'display_prefix as displayPrefix',
        'created_at as createdAt',
        'last_used_at as lastUsedAt',
        'revoked_at as revokedAt',
      ])
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .execute(),

  apiKeyById: (db: IdentityDb, id: string) =>
    db.selectFrom('api_keys').select(['id', 'user_id as userId', 'key_hash as keyHash']).where('id', '=', id).executeTakeFirst(),

  /** Tells every process caching principals that this user's changed; delivered when the transaction commits. */
  /**
   * Numbers the change and tells every process following changes (payload `<number> <user id>`), at commit. Returns
   * the number, which the followers acknowledge once their caches no longer hold the user's old principal.
   */
  notifyPrincipalChanged: async (db: IdentityDb, userId: string): Promise<bigint> => {
    const { rows } = await sql<{ seq: string }>`select nextval('identity.principal_change_seq')::text as seq`.execute(db);
    const seq = rows[0]!.seq;
    await sql`select pg_notify(${PRINCIPAL_CHANGED_CHANNEL}, ${`${seq} ${userId}`})`.execute(db);
    return BigInt(seq);
  },

  /**
   * Registered once the follower LISTENs: it acknowledges each change whose notification it receives from then on.
   * It starts at 0, not at the newest number, because a change numbered but not yet committed would otherwise count
   * as applied while its notification is still to come. Rows of followers gone for an hour (a process killed before
   * its clean-up) are deleted on the way.
   */
  registerPrincipalFollower: async (db: IdentityDb, id: string) => {
    await db.deleteFrom('principal_followers').where('seen_at', '<', sql<Date>`now() - interval '1 hour'`).execute();
    await db
      .insertInto('principal_followers')
      .values({ id, acked_seq: 0 })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  },

  /** The follower is alive (heartbeat), and has applied every change up to `seq` when given. */
  touchPrincipalFollower: (db: IdentityDb, id: string, seq?: bigint) =>
    db
      .updateTable('principal_followers')
      .set((eb) => ({
        seen_at: sql`now()`,
        ...(seq === undefined ? {} : { acked_seq: eb.fn('greatest', [eb.ref('acked_seq'), sql`${String(seq)}::bigint`]) }),
      }))
      .where('id', '=', id)
      .executeTakeFirst()
      .then((result) => Number(result.numUpdatedRows) > 0),

  removePrincipalFollower: (db: IdentityDb, id: string) => db.deleteFrom('principal_followers').where('id', '=', id).execute(),

  /** Followers seen within `aliveWithinMs` that have not yet applied change `seq`. */
  followersBehind: async (db: IdentityDb, seq: bigint, aliveWithinMs: number): Promise<string[]> => {
    const rows = await db
      .selectFrom('principal_followers')
      .select('id')
      .where('acked_seq', '<', String(seq))
      .where('seen_at', '>', sql<Date>`now() - make_interval(secs => ${aliveWithinMs / 1000})`)
      .execute();
    return rows.map((row) => row.id);
  },

  revokeApiKey: (db: IdentityDb, id: string) =>
    db.updateTable('api_keys').set({ revoked_at: sql`now()` }).where('id', '=', id).where('revoked_at', 'is', null).execute(),

  activeKeyByHash: (db: IdentityDb, keyHash: string) =>
    db
      .selectFrom('api_keys')
      .select(['id', 'user_id as userId'])
      .where('key_hash', '=', keyHash)
      .where('revoked_at', 'is', null)
      .executeTakeFirst(),

  touchApiKey: (db: IdentityDb, id: string) =>
    db.updateTable('api_keys').set({ last_used_at: sql`now()` }).where('id', '=', id).execute(),
};
