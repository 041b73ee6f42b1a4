import type { Kysely } from 'kysely';
import { hashApiKey } from '../../platform/auth/api-key.js';
import type { Principal, TeamRole } from '../../platform/auth/principal.js';
import type { IdentityDatabase } from './db/database.js';
import { identityStore as store } from './store.js';

/**
 * Resolves an API key to the caller's Principal. This is identity's code run at the platform edge (gateway and
 * REST adapter), so no other subgraph reads identity's tables. Results are cached briefly because every request
 * authenticates; revocations and role changes made through this process clear the cache at once, and other
 * processes see them within `ttlMs`.
 */
export class Authenticator {
  private readonly cache = new Map<string, { principal: Principal | null; expires: number }>();
  private readonly lastTouched = new Map<string, number>();
  /** Lookups in flight: when a popular key's entry expires, concurrent requests share one lookup. */
  private readonly loading = new Map<string, Promise<Principal | null>>();

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
      pending = this.load(keyHash)
        .then((principal) => {
          if (this.cache.size >= this.maxEntries) this.cache.clear();
          this.cache.set(keyHash, { principal, expires: Date.now() + this.ttlMs });
          return principal;
        })
        .finally(() => this.loading.delete(keyHash));
      this.loading.set(keyHash, pending);
    }
    return pending;
  }

  invalidate(): void {
    this.cache.clear();
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
