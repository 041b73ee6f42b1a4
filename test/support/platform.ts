import { loadConfig } from '../../platform/config.js';
import { createLogger } from '../../platform/logger.js';
import { startPlatform, type RunningPlatform, type StartPlatformOptions } from '../../server/platform.js';
import type { IdentityServices } from '../../subgraphs/identity/services.js';
import type { TeamRole } from '../../platform/auth/principal.js';
import { createTestDatabase } from './database.js';

export const ADMIN_KEY = 'test-admin-key-0123456789abcdefghij';

export interface TestPlatform extends RunningPlatform {
  adminKey: string;
  /** POST /graphql with a key (default: the admin's); returns the parsed body and status. */
  graphql<T = any>(query: string, variables?: Record<string, unknown>, key?: string | null): Promise<{ status: number; body: { data?: T; errors?: any } }>;
  /** fetch relative to the platform URL. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** A REST request as the admin (a JSON body when given); returns the status and the parsed JSON answer. */
  rest(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** Creates a user with an API key, optionally a member of teams with the given roles. */
  createUser(username: string, teams?: Record<string, TeamRole>): Promise<{ userId: string; key: string }>;
  identity: IdentityServices;
}

/**
 * The whole platform on a fresh database of the run's PostgreSQL server, listening on a free loopback port, with
 * a bootstrapped admin (team `trellis`, project `default`). Close it in afterAll.
 */
export async function startTestPlatform(
  options: { env?: Record<string, string>; workers?: boolean; databaseUrl?: string } & Pick<StartPlatformOptions, 'routes' | 'subgraphs'> = {},
): Promise<TestPlatform> {
  const databaseUrl = options.databaseUrl ?? (await createTestDatabase());
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    PORT: '0',
    HOST: '127.0.0.1',
    TRELLIS_BOOTSTRAP_API_KEY: ADMIN_KEY,
    TRELLIS_DATA_DIR: `/tmp/trellis-test-data-${process.pid}`,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ...options.env,
  });
  const logger = createLogger({ level: config.logLevel });
  const platform = await startPlatform({ config, logger, workers: options.workers, routes: options.routes, subgraphs: options.subgraphs });
  const identity = platform.subgraphs.get('identity')!.services as IdentityServices;
  const fetchPath = (path: string, init?: RequestInit) => fetch(`${platform.url}${path}`, init);
  return {
    ...platform,
    adminKey: ADMIN_KEY,
    identity,
    fetch: fetchPath,
    async rest(method, path, body) {
      const response = await fetchPath(path, {
        method,
        headers: { authorization: `Bearer ${ADMIN_KEY}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
      return { status: response.status, body: (await response.json()) as any };
    },
    async graphql(query, variables, key = ADMIN_KEY) {
      const response = await fetchPath('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
        body: JSON.stringify({ query, variables }),
      });
      return { status: response.status, body: (await response.json()) as any };
    },
    async createUser(username, teams = {}) {
      const user = await identity.identity.createUser({ username });
      const { key } = await identity.identity.createApiKey(user.id, 'test');
      const admin = (await identity.authenticator.authenticate(ADMIN_KEY))!;
      for (const [team, role] of Object.entries(teams)) {
        if (!(await identity.identity.team(team))) await identity.identity.createTeam(team, admin);
        await identity.identity.setTeamMember(admin, team, username, role);
      }
      return { userId: user.id, key };
    },
  };
}
