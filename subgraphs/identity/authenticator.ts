import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { hashApiKey } from '../../platform/auth/api-key.js';
import type { Principal, TeamRole } from '../../platform/auth/principal.js';
import { PRINCIPAL_CHANGED_CHANNEL } from '../../platform/events/contracts.js';
import { NotificationListener } from '../../platform/events/notification-listener.js';
import type { Logger } from '../../platform/logger.js';
import type { IdentityDatabase } from './db/database.js';
import { identityStore as store } from './store.js';

/**
 * Resolves an API key to the caller's Principal. This is identity's code run at the platform edge (gateway and
 * REST adapter), so no other subgraph reads identity's tables. Results are cached briefly because every request
 * authenticates. A change to a user's principal (memberships, roles, a revoked key) drops that user's cached
 * principals: in the process that made it at once, after its commit; in every other process that follows changes
 * (`followChanges`: a LISTEN on identity's PRINCIPAL_CHANGED_CHANNEL) when the notification arrives, which is
 * milliseconds after the commit. `ttlMs` only bounds staleness when notifications are lost (a listener that lost
 * its connection drops everything once it is back).
 *
 * A change is in force everywhere when the mutation that made it returns: each follower acknowledges the change's
 * number in identity.principal_followers once it has dropped what it cached, and the changing process waits for every
 * live follower's acknowledgement (`awaitFollowers`) — at most `ttlMs`, after which no cache can hold a principal
 * read before the commit anyway.
 */
/** How often a follower shows it is alive, and how long a silent one still counts as one to wait for. */
const FOLLOWER_HEARTBEAT_MS = 2_000;
const FOLLOWER_ALIVE_MS = 3 * FOLLOWER_HEARTBEAT_MS;

export class Authenticator {
  private readonly cache = new Map<string, { principal: Principal | null; expires: number }>();
  private readonly lastTouched = new Map<string, number>();
  /** Lookups in flight: when a popular key's entry expires, concurrent requests share one lookup. */
  private readonly loading = new Map<string, Promise<Principal | null>>();
  /** Bumped by every invalidation: a lookup that started before one must not cache what it read. */
  private generation = 0;
  private readonly changeHandlers = new Set<(userId: string | null) => void>();
  private listener: NotificationListener | undefined;
  /** This process's row in identity.principal_followers while it follows changes. */
  private follower: { id: string; heartbeat: NodeJS.Timeout; logger: Logger } | undefined;

  constructor(
    private readonly db: Kysely<IdentityDatabase>,
    private readonly ttlMs = 5_000,
    private readonly maxEntries = 10_000,
  ) {}

  async authenticate(apiKey: string): Promise<Principal | null> {
    const keyHash = hashApiKey(apiKey);
    const now = Date.now();
    const cached = this.cache.get(keyHash);
    if (cached && cached.expires > now) return cached.principal;
    let pending = this.loading.get(keyHash);
    if (!pending) {
      const generation = this.generation;
      const loading: Promise<Principal | null> = this.load(keyHash)
        .then((principal) => {
          if (generation === this.generation) {
            if (this.cache.size >= this.maxEntries) this.cache.clear();
            this.cache.set(keyHash, { principal, expires: Date.now() + this.ttlMs });
          }
          return principal;
        })
        .finally(() => {
          if (this.loading.get(keyHash) === loading) this.loading.delete(keyHash);
        });
      pending = loading;
      this.loading.set(keyHash, pending);
    }
    return pending;
  }

  /** Drops every cached principal. */
  invalidate(): void {
    this.forget(() => true);
    this.emit(null);
  }

  /** Drops the cached principals of these users (every key of theirs). */
  invalidateUsers(userIds: readonly string[]): void {
    const users = new Set(userIds);
    this.forget((principal) => principal !== null && users.has(principal.userId));
    for (const userId of users) this.emit(userId);
  }

  /**
   * Calls `handler` after cached principals were dropped, with the user's id (null: anyone's may have changed),
   * e.g. for open subscriptions to re-authenticate their key. Returns the unsubscribe function.
   */
  onPrincipalChanged(handler: (userId: string | null) => void): () => void {
    this.changeHandlers.add(handler);
    return () => this.changeHandlers.delete(handler);
  }

  /**
   * Follows principal changes committed by any process (one dedicated LISTEN connection) until `close()`, and
   * acknowledges each as applied (see the class comment).
   */
  async followChanges(connectionString: string, logger: Logger): Promise<void> {
    if (this.listener) return;
    this.listener = new NotificationListener(connectionString, logger);
    // The payload is `<change number> <user id>`; an empty one is a wake-up after a reconnect: notifications may have
    // been missed meanwhile, so everything goes (nothing is acknowledged: the missed numbers are unknown).
    await this.listener.listen(PRINCIPAL_CHANGED_CHANNEL, (payload) => {
      if (!payload) return this.invalidate();
      const [seq, userId] = payload.split(' ');
      this.invalidateUsers([userId!]);
      this.acknowledge(BigInt(seq!));
    });
    // Registered once listening: from here on it receives, and so acknowledges, every change that commits. A process
    // other than identity's own (the distributed gateway, a subgraph service) may start before identity has created
    // the table: the heartbeat registers it then.
    const id = randomUUID();
    const heartbeat = setInterval(() => this.beat(), FOLLOWER_HEARTBEAT_MS);
    heartbeat.unref();
    this.follower = { id, heartbeat, logger };
    await store.registerPrincipalFollower(this.db, id).catch((error: unknown) => {
      logger.info({ err: error }, 'principal changes: not registered as a follower yet (identity not migrated?); retrying with the heartbeat');
    });
  }

  /**
   * Waits until every live follower has applied change `seq` (or `ttlMs` passed: what any of them cached before the
   * commit has expired by then). Called by the process that made the change, after its commit.
   */
  async awaitFollowers(seq: bigint): Promise<void> {
    const deadline = Date.now() + this.ttlMs;
    let behind = await store.followersBehind(this.db, seq, FOLLOWER_ALIVE_MS);
    while (behind.length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      behind = await store.followersBehind(this.db, seq, FOLLOWER_ALIVE_MS);
    }
    if (behind.length > 0) this.follower?.logger.warn({ followers: behind, seq: String(seq) }, 'principal change not acknowledged in time: relying on the cache lifetime');
  }

  async close(): Promise<void> {
    const follower = this.follower;
    this.follower = undefined;
    if (follower) {
      clearInterval(follower.heartbeat);
      await store.removePrincipalFollower(this.db, follower.id).catch(() => undefined);
    }
    await this.listener?.close();
    this.listener = undefined;
  }

  private acknowledge(seq: bigint): void {
    const follower = this.follower;
    if (!follower) return;
    store.touchPrincipalFollower(this.db, follower.id, seq).catch((error: unknown) => {
      follower.logger.warn({ err: error }, 'could not acknowledge a principal change (the changing process waits for the cache lifetime)');
    });
  }

  /** Shows the follower alive; re-registers it if its row was cleaned up meanwhile (after a long pause). */
  private beat(): void {
    const follower = this.follower;
    if (!follower) return;
    store
      .touchPrincipalFollower(this.db, follower.id)
      .then((found) => (found ? undefined : store.registerPrincipalFollower(this.db, follower.id)))
      .catch((error: unknown) => follower.logger.debug({ err: error }, 'principal follower heartbeat failed'));
  }

  private forget(matches: (principal: Principal | null) => boolean): void {
    this.generation += 1;
    // Lookups in flight may have read the old state: later requests start their own.
    this.loading.clear();
    for (const [keyHash, entry] of this.cache) if (matches(entry.principal)) this.cache.delete(keyHash);
  }

  private emit(userId: string | null): void {
    for (const handler of this.changeHandlers) {
      try {
        handler(userId);
      } catch {
        // A handler's failure is its own; the cache is already consistent.
      }
    }
  }

  private async load(keyHash: string): Promise<Principal | null> {
    const key = await store.activeKeyByHash(this.db, keyHash);
    if (!key) return null;
    const [user, teams, resourceRoles] = await Promise.all([
      store.userById(this.db, key.userId),
      store.teamsOfUser(this.db, key.userId),
      store.resourceRolesOfUser(this.db, key.userId),
    ]);
    if (!user) return null;
    this.touch(key.id);
    const teamRoles: Record<string, TeamRole> = {};
    for (const team of teams) teamRoles[team.name] = team.role;
    return {
      userId: user.id,
      username: user.username,
      isAdmin: user.isAdmin,
      apiKeyId: key.id,
      defaultEntity: user.defaultEntity ?? teams[0]?.name ?? user.username,
      teams: teamRoles,
      projectAdmin: resourceRoles.filter((role) => role.kind === 'PROJECT').map((role) => `${role.entity}/${role.name}`),
      registryAdmin: resourceRoles.filter((role) => role.kind === 'REGISTRY').map((role) => `${role.entity}/${role.name}`),
    };
  }

  /** last_used_at is informational: written at most once a minute per key, off the request's critical path. */
  private touch(keyId: string): void {
    const now = Date.now();
    if ((this.lastTouched.get(keyId) ?? 0) > now - 60_000) return;
    this.lastTouched.set(keyId, now);
    store.touchApiKey(this.db, keyId).catch(() => undefined);
  }
}
