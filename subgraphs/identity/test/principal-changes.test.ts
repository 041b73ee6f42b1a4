import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../platform/logger.js';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import { Authenticator } from '../authenticator.js';
import type { IdentityDatabase } from '../db/database.js';

/**
 * Cached principals follow changes to what they hold: in the process that made the change before it answers, and
 * in every other process (the gateway of the distributed topology) as soon as the change commits.
 */
let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform({ workers: false });
});
afterAll(() => platform?.close());

const gql = (key: string, query: string, variables?: Record<string, unknown>) => platform.graphql(query, variables, key);

describe('cached principals', () => {
  it('let a team\'s creator add members right after createTeam', async () => {
    const creator = await platform.createUser('founder');
    await platform.createUser('first-hire');
    // The creator's principal is cached (no teams but their own) by this request.
    expect((await gql(creator.key, '{ viewer { username } }')).body.data.viewer.username).toBe('founder');
    expect((await gql(creator.key, 'mutation { createTeam(name: "startup") { name } }')).body.errors).toBeUndefined();
    const added = await gql(creator.key, 'mutation { setTeamMember(team: "startup", username: "first-hire", role: MEMBER) { name } }');
    expect(added.body.errors).toBeUndefined();
    expect(added.body.data.setTeamMember.name).toBe('startup');
  });

  it('shut a removed member out of the team at once', async () => {
    const admin = await platform.createUser('lead', { crew: 'ADMIN' });
    const member = await platform.createUser('deckhand', { crew: 'MEMBER' });
    const projects = '{ team(name: "crew") { name } }';
    expect((await gql(member.key, projects)).body.data.team).toEqual({ name: 'crew' });
    expect((await gql(admin.key, 'mutation { removeTeamMember(team: "crew", username: "deckhand") }')).body.data.removeTeamMember).toBe(true);
    expect((await gql(member.key, projects)).body.data.team).toBeNull();
  });

  it('reach another process\'s cache when the change commits (distributed topology: the gateway\'s authenticator)', async () => {
    const user = await platform.createUser('remote-viewer');
    // A second authenticator whose cache would otherwise hold principals for a minute.
    const elsewhere = new Authenticator(platform.db.forSchema<IdentityDatabase>('identity'), 60_000);
    await elsewhere.followChanges(platform.databaseUrl, createLogger({ level: 'silent' }));
    const changes: (string | null)[] = [];
    elsewhere.onPrincipalChanged((userId) => changes.push(userId));
    try {
      expect((await elsewhere.authenticate(user.key))!.teams).toEqual({ 'remote-viewer': 'ADMIN' });
      expect((await gql(platform.adminKey, 'mutation { setTeamMember(team: "trellis", username: "remote-viewer", role: MEMBER) { name } }')).body.errors).toBeUndefined();
      const deadline = Date.now() + 3_000;
      let teams = (await elsewhere.authenticate(user.key))!.teams;
      while (teams.trellis === undefined && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        teams = (await elsewhere.authenticate(user.key))!.teams;
      }
      expect(teams).toEqual({ 'remote-viewer': 'ADMIN', trellis: 'MEMBER' });
      expect(changes).toContain(user.userId);

      // A revoked key stops working there too.
      const keys = await gql(user.key, '{ viewer { apiKeys { id } } }');
      await gql(user.key, 'mutation($id: ID!) { revokeApiKey(id: $id) { id } }', { id: keys.body.data.viewer.apiKeys[0].id });
      let principal = await elsewhere.authenticate(user.key);
      while (principal !== null && Date.now() < deadline + 3_000) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        principal = await elsewhere.authenticate(user.key);
      }
      expect(principal).toBeNull();
    } finally {
      await elsewhere.close();
    }
  });
});
