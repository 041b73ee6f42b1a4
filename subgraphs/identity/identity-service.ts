import { sql, type Kysely, type Transaction } from 'kysely';
import { apiKeyDisplayPrefix, generateApiKey, hashApiKey } from '../../platform/auth/api-key.js';
import type { Principal, TeamRole } from '../../platform/auth/principal.js';
import { isTeamAdmin, isTeamMember } from '../../platform/auth/principal.js';
import { ConflictError, ForbiddenError, NotFoundError } from '../../platform/errors.js';
import type { Logger } from '../../platform/logger.js';
import type { IdentityDatabase } from './db/database.js';
import { assertValidName } from './names.js';
import { identityStore as store, type ApiKeyRow, type ProjectRow, type TeamRow, type UserRow } from './store.js';

/**
 * The identity domain: users, teams (entities), memberships, projects, roles and API keys. Every write runs in
 * one transaction; authorization decisions that need the caller take the Principal explicitly.
 */
export class IdentityService {
  constructor(
    private readonly db: Kysely<IdentityDatabase>,
    private readonly logger: Logger,
    /**
     * After the change numbered `seq` committed: drops this process's cached principals of the users and waits until
     * every other process has dropped theirs (see changePrincipals).
     */
    private readonly onPrincipalsChanged: (userIds: string[], seq: bigint) => Promise<void> | void = () => undefined,
  ) {}

  /** Creates a user with a personal team of the same name (their default entity) and, optionally, a first key. */
  async createUser(input: { username: string; email?: string | null; isAdmin?: boolean }): Promise<UserRow> {
    const username = assertValidName('User', input.username);
    return this.claimingNames(() => this.db.transaction().execute(async (trx) => {
      // The unique indexes decide (ignoring case, users and teams alike), so concurrent creates cannot both win.
      const userId = await store.insertUser(trx, { username, email: input.email ?? null, isAdmin: input.isAdmin ?? false });
      if (!userId) throw new NameTaken(username);
      const teamId = await store.insertTeam(trx, username);
      if (!teamId) throw new NameTaken(username);
      await store.upsertMembership(trx, teamId, userId, 'ADMIN');
      await store.setDefaultTeam(trx, userId, teamId);
      return (await store.userById(trx, userId))!;
    }));
  }

  async createTeam(name: string, creator: { userId: string }): Promise<TeamRow> {
    assertValidName('Team', name);
    return this.claimingNames(() =>
      this.changePrincipals(async (trx, affects) => {
        const teamId = await store.insertTeam(trx, name);
        if (!teamId) throw new NameTaken(name);
        await store.upsertMembership(trx, teamId, creator.userId, 'ADMIN');
        affects(creator.userId);
        return (await store.teamByName(trx, name))!;
      }),
    );
  }

  async setTeamMember(caller: Principal, team: string, username: string, role: TeamRole): Promise<TeamRow> {
    if (!isTeamAdmin(caller, team)) throw new ForbiddenError(`Only admins of team "${team}" may change its members`);
    return this.changePrincipals(async (trx, affects) => {
      const teamRow = await this.requireTeam(trx, team);
      const user = await store.userByUsername(trx, username);
      if (!user) throw new NotFoundError(`User "${username}" does not exist`);
      await store.lockTeamMemberships(trx, teamRow.id);
      await store.upsertMembership(trx, teamRow.id, user.id, role);
      await this.keepAnAdmin(trx, teamRow, username, 'demote');
      if (!user.defaultEntity) await store.setDefaultTeam(trx, user.id, teamRow.id);
      affects(user.id);
      return teamRow;
    });
  }

  async removeTeamMember(caller: Principal, team: string, username: string): Promise<boolean> {
    if (!isTeamAdmin(caller, team)) throw new ForbiddenError(`Only admins of team "${team}" may change its members`);
    return this.changePrincipals(async (trx, affects) => {
      const teamRow = await this.requireTeam(trx, team);
      const user = await store.userByUsername(trx, username);
      if (!user) throw new NotFoundError(`User "${username}" does not exist`);
      await store.lockTeamMemberships(trx, teamRow.id);
      const result = await store.removeMembership(trx, teamRow.id, user.id);
      await this.keepAnAdmin(trx, teamRow, username, 'remove');
      affects(user.id);
      return Number(result.numDeletedRows) > 0;
    });
  }

  async createProject(caller: Principal, entity: string, name: string): Promise<ProjectRow> {
    assertValidName('Project', name);
    if (!isTeamMember(caller, entity)) throw new ForbiddenError(`You cannot create projects in entity "${entity}"`);
    return this.db.transaction().execute(async (trx) => {
      const team = await this.requireTeam(trx, entity);
      if (await store.projectByName(trx, entity, name)) throw new ConflictError(`Project "${entity}/${name}" already exists`);
      await store.ensureProject(trx, team.id, name);
      return (await store.projectByName(trx, entity, name))!;
    });
  }

  /**
   * Idempotent creation for "created on first write" semantics of the family APIs. Every trace write calls this
   * first, so projects already known to exist are answered from a process-local cache (projects are never
   * deleted or renamed, so an entry cannot go stale; the membership check still runs on every call).
   */
  async ensureProject(caller: Principal, entity: string, name: string): Promise<ProjectRow> {
    assertValidName('Project', name);
    if (!isTeamMember(caller, entity)) throw new ForbiddenError(`You cannot write to entity "${entity}"`);
    const key = `${entity}/${name}`;
    const cached = this.knownProjects.get(key);
    if (cached) return cached;
    const existing =
      (await store.projectByName(this.db, entity, name)) ??
      (await this.db.transaction().execute(async (trx) => {
        const team = await this.requireTeam(trx, entity);
        await store.ensureProject(trx, team.id, name);
        return (await store.projectByName(trx, entity, name))!;
      }));
    if (this.knownProjects.size >= 10_000) this.knownProjects.clear();
    this.knownProjects.set(key, existing);
    return existing;
  }

  private readonly knownProjects = new Map<string, ProjectRow>();

  /**
   * W&B's upsertModel: the project, created on first use like ensureProject, with its description replaced when one
   * is given. `inserted` says whether this call created it.
   */
  async upsertProject(caller: Principal, entity: string, name: string, description: string | null | undefined): Promise<{ project: ProjectRow; inserted: boolean }> {
    assertValidName('Project', name);
    if (!isTeamMember(caller, entity)) throw new ForbiddenError(`You cannot write to entity "${entity}"`);
    return this.db.transaction().execute(async (trx) => {
      const team = await this.requireTeam(trx, entity);
      const existed = await store.projectByName(trx, entity, name);
      if (!existed) await store.ensureProject(trx, team.id, name);
      const project = (await store.projectByName(trx, entity, name))!;
      if (description !== undefined && description !== null) await store.setProjectDescription(trx, project.id, description);
      return { project, inserted: !existed };
    });
  }

  projectDescription = (projectId: string) => store.projectDescription(this.db, projectId);

  async grantResourceAdmin(
    caller: Principal,
    kind: 'PROJECT' | 'REGISTRY',
    entity: string,
    resource: string,
    username: string,
  ): Promise<boolean> {
    if (!isTeamAdmin(caller, entity)) throw new ForbiddenError(`Only admins of team "${entity}" may grant roles`);
    assertValidName(kind === 'PROJECT' ? 'Project' : 'Registry', resource);
    await this.changePrincipals(async (trx, affects) => {
      const team = await this.requireTeam(trx, entity);
      const user = await store.userByUsername(trx, username);
      if (!user) throw new NotFoundError(`User "${username}" does not exist`);
      await store.grantResourceAdmin(trx, user.id, team.id, kind, resource);
      affects(user.id);
    });
    return true;
  }

  /** The key itself is returned only here, once; only its hash is stored. */
  async createApiKey(userId: string, name: string): Promise<{ key: string; apiKey: ApiKeyRow }> {
    const key = generateApiKey();
    return this.db.transaction().execute(async (trx) => {
      if (!(await store.userById(trx, userId))) throw new NotFoundError('User does not exist');
      const id = await store.insertApiKey(trx, {
        userId,
        name,
        displayPrefix: apiKeyDisplayPrefix(key),
        keyHash: hashApiKey(key),
      });
      const apiKey = (await store.apiKeysOfUser(trx, userId)).find((row) => row.id === id)!;
      return { key, apiKey };
    });
  }

  async revokeApiKey(caller: Principal, id: string): Promise<ApiKeyRow> {
    const key = await store.apiKeyById(this.db, id);
    if (!key || (key.userId !== caller.userId && !caller.isAdmin)) throw new NotFoundError(`API key ${id} does not exist`);
    await this.changePrincipals(async (trx, affects) => {
      await store.revokeApiKey(trx, id);
      affects(key.userId);
    });
    return (await store.apiKeysOfUser(this.db, key.userId)).find((row) => row.id === id)!;
  }

  /**
   * First start with TRELLIS_BOOTSTRAP_API_KEY: when there are no users yet, create an admin user holding that
   * key, a team and a default project. The advisory lock makes two processes starting at once agree.
   */
  async bootstrap(options: { apiKey: string; username: string; team: string; project: string }): Promise<boolean> {
    return this.claimingNames(() => this.db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(hashtext('trellis:bootstrap'))`.execute(trx);
      if ((await store.countUsers(trx)) > 0) return false;
      const userId = await store.insertUser(trx, { username: options.username, email: null, isAdmin: true });
      if (!userId) throw new NameTaken(options.username);
      const personalTeamId = await store.insertTeam(trx, options.username);
      if (!personalTeamId) throw new NameTaken(options.username);
      await store.upsertMembership(trx, personalTeamId, userId, 'ADMIN');
      // The team may be the user's own entity (same name).
      const teamId = (await store.insertTeam(trx, options.team)) ?? (await store.teamByName(trx, options.team))?.id;
      if (!teamId) throw new NameTaken(options.team);
      await store.upsertMembership(trx, teamId, userId, 'ADMIN');
      await store.setDefaultTeam(trx, userId, teamId);
      await store.ensureProject(trx, teamId, options.project);
      await store.insertApiKey(trx, {
        userId,
        name: 'bootstrap',
        displayPrefix: apiKeyDisplayPrefix(options.apiKey),
        keyHash: hashApiKey(options.apiKey),
      });
      this.logger.info({ user: options.username, team: options.team, project: options.project }, 'bootstrapped first admin user');
      return true;
    }));
  }

  // Reads used by resolvers.
  user = (id: string) => store.userById(this.db, id);
  userByUsername = (username: string) => store.userByUsername(this.db, username);
  team = (name: string) => store.teamByName(this.db, name);
  project = (entity: string, name: string) => store.projectByName(this.db, entity, name);
  projectsOfTeam = (teamId: string) => store.projectsOfTeam(this.db, teamId);
  membersOfTeam = (teamId: string) => store.membersOfTeam(this.db, teamId);
  teamsOfUser = (userId: string) => store.teamsOfUser(this.db, userId);
  apiKeysOfUser = (userId: string) => store.apiKeysOfUser(this.db, userId);

  /**
   * A write that changes what some users' principals hold. Every process caching principals is told in the
   * transaction (a NOTIFY, delivered at commit); this process drops its own cached ones after the commit, and the
   * caller hears back once every process has acknowledged the change, so the caller's next request — and anyone's, on
   * any process — already sees it (a removed member is refused everywhere; a team's creator can add members at once).
   * Dropping them before the commit would let a concurrent request cache the old principal again.
   */
  private async changePrincipals<T>(work: (trx: Transaction<IdentityDatabase>, affects: (userId: string) => void) => Promise<T>): Promise<T> {
    const affected = new Set<string>();
    let newest = 0n;
    const result = await this.db.transaction().execute(async (trx) => {
      const value = await work(trx, (userId) => affected.add(userId));
      for (const userId of affected) {
        const seq = await store.notifyPrincipalChanged(trx, userId);
        if (seq > newest) newest = seq;
      }
      return value;
    });
    if (affected.size > 0) await this.onPrincipalsChanged([...affected], newest);
    return result;
  }

  /**
   * Runs a transaction (`run`) that creates users or teams. A name some user or team already holds (ignoring case)
   * rolls it back with NameTaken; the 409 then says who holds the name, read after the rollback so that it is not our
   * own half-made entity.
   */
  private async claimingNames<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (!(error instanceof NameTaken)) throw error;
      const holder = await store.entityNameHolder(this.db, error.entityName);
      const by = holder ? `the ${holder.kind} "${holder.name}"` : 'another user or team';
      throw new ConflictError(`The name "${error.entityName}" is taken by ${by}: user and team names share one namespace and are unique ignoring case`);
    }
  }

  /**
   * A team always keeps an admin (someone must be able to manage it): a change that leaves none is refused with
   * CONFLICT and rolled back. Runs after the change, under the team's membership lock, so two admins removing each
   * other at once cannot both succeed.
   */
  private async keepAnAdmin(trx: Transaction<IdentityDatabase>, team: TeamRow, username: string, change: 'remove' | 'demote'): Promise<void> {
    if ((await store.countTeamAdmins(trx, team.id)) > 0) return;
    throw new ConflictError(
      `"${username}" is the last admin of team "${team.name}": make another member an admin before you ${change === 'remove' ? 'remove' : 'demote'} them`,
    );
  }

  private async requireTeam(db: Parameters<typeof store.teamByName>[0], name: string): Promise<TeamRow> {
    const team = await store.teamByName(db, name);
    if (!team) throw new NotFoundError(`Entity "${name}" does not exist`);
    return team;
  }
}


/** A user or team name that a unique index (exact, or ignoring case) refused. */
class NameTaken extends Error {
  constructor(readonly entityName: string) {
    super(`name "${entityName}" is taken`);
  }
}
