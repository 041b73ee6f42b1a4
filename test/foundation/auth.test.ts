import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../platform/auth/api-key.js';
import { apiKeyFromAuthorization, credentialsFromAuthorization } from '../../platform/auth/credentials.js';
import { signPrincipal, verifyPrincipal } from '../../platform/auth/internal-signature.js';
import type { Principal } from '../../platform/auth/principal.js';
import { startTestPlatform, type TestPlatform } from '../support/platform.js';

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform({ workers: false });
});
afterAll(() => platform?.close());

describe('API keys', () => {
  it('are shown once, stored only as a hash, and work as Bearer or Basic credentials', async () => {
    const { body } = await platform.graphql('mutation { createApiKey(name: "laptop") { key apiKey { id prefix } } }');
    const { key, apiKey } = body.data.createApiKey;
    expect(key).toHaveLength(40);
    expect(key.startsWith(apiKey.prefix)).toBe(true);
    const stored = await platform.db.root.selectFrom('identity.api_keys').selectAll().where('id', '=', apiKey.id).executeTakeFirstOrThrow();
    expect(stored.key_hash).toBe(hashApiKey(key));
    expect(JSON.stringify(stored)).not.toContain(key);
    const listed = await platform.graphql('{ viewer { apiKeys { name prefix } } }');
    expect(JSON.stringify(listed.body)).not.toContain(key);
    const basic = await platform.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`api:${key}`).toString('base64')}` },
      body: JSON.stringify({ query: '{ viewer { username } }' }),
    });
    expect(((await basic.json()) as any).data.viewer.username).toBe('admin');
  });

  it('stop working as soon as they are revoked', async () => {
    const { key, userId } = await platform.createUser('leaver', { trellis: 'MEMBER' });
    expect((await platform.graphql('{ viewer { id } }', undefined, key)).body.data.viewer.id).toBe(userId);
    const keys = await platform.graphql('{ viewer { apiKeys { id } } }', undefined, key);
    const id = keys.body.data.viewer.apiKeys[0].id;
    const revoked = await platform.graphql('mutation($id: ID!) { revokeApiKey(id: $id) { revokedAt } }', { id }, key);
    expect(revoked.body.data.revokeApiKey.revokedAt).toBeTruthy();
    expect((await platform.graphql('{ viewer { id } }', undefined, key)).status).toBe(401);
  });

  it('cannot be revoked by another user', async () => {
    const owner = await platform.createUser('owner1');
    const other = await platform.createUser('other1');
    const keys = await platform.graphql('{ viewer { apiKeys { id } } }', undefined, owner.key);
    const attempt = await platform.graphql(
      'mutation($id: ID!) { revokeApiKey(id: $id) { id } }',
      { id: keys.body.data.viewer.apiKeys[0].id },
      other.key,
    );
    expect(attempt.body.errors[0].extensions.code).toBe('NOT_FOUND');
    expect((await platform.graphql('{ viewer { id } }', undefined, owner.key)).status).toBe(200);
  });
});

describe('roles', () => {
  it('lets team admins manage members and members create projects, but not the reverse', async () => {
    const admin = await platform.createUser('team-admin', { acme: 'ADMIN' });
    const member = await platform.createUser('team-member', { acme: 'MEMBER' });
    await platform.createUser('newcomer');
    const denied = await platform.graphql('mutation { setTeamMember(team: "acme", username: "newcomer", role: MEMBER) { name } }', undefined, member.key);
    expect(denied.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const added = await platform.graphql('mutation { setTeamMember(team: "acme", username: "newcomer", role: MEMBER) { members { username role } } }', undefined, admin.key);
    expect(added.body.data.setTeamMember.members).toContainEqual({ username: 'newcomer', role: 'MEMBER' });
    const project = await platform.graphql('mutation { createProject(entity: "acme", name: "p1") { fullName } }', undefined, member.key);
    expect(project.body.data.createProject.fullName).toBe('acme/p1');
    const duplicate = await platform.graphql('mutation { createProject(entity: "acme", name: "p1") { fullName } }', undefined, member.key);
    expect(duplicate.body.errors[0].extensions).toMatchObject({ code: 'CONFLICT', status: 409 });
  });

  it('only lets platform administrators create users', async () => {
    const user = await platform.createUser('plain');
    const denied = await platform.graphql('mutation { createUser(username: "sneaky") { id } }', undefined, user.key);
    expect(denied.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const created = await platform.graphql('mutation { createUser(username: "proper") { username defaultEntity { name } } }');
    expect(created.body.data.createUser).toEqual({ username: 'proper', defaultEntity: { name: 'proper' } });
  });
});

describe('credentials and the internal identity header', () => {
  it('reads Bearer and Basic api:<key> headers', () => {
    expect(apiKeyFromAuthorization('Bearer abc')).toBe('abc');
    expect(apiKeyFromAuthorization(`Basic ${Buffer.from('api:xyz').toString('base64')}`)).toBe('xyz');
    expect(apiKeyFromAuthorization('Digest foo')).toBeUndefined();
    // W&B's (and every Weave SDK's) Basic user is `api`: another user is a credential that can never be right.
    expect(credentialsFromAuthorization(`Basic ${Buffer.from('mallory:xyz').toString('base64')}`)).toEqual({ kind: 'invalid' });
    expect(apiKeyFromAuthorization(`Basic ${Buffer.from('mallory:xyz').toString('base64')}`)).toBeUndefined();
    expect(credentialsFromAuthorization(undefined)).toEqual({ kind: 'none' });
    expect(apiKeyFromAuthorization(undefined)).toBeUndefined();
  });

  it('rejects forged, re-signed and stale identity headers', () => {
    const principal = { userId: 'u1', username: 'a', isAdmin: false } as Principal;
    const headers = signPrincipal(principal, 'secret-1');
    expect(verifyPrincipal(headers, 'secret-1')).toEqual(principal);
    expect(() => verifyPrincipal(headers, 'other-secret')).toThrow(/bad signature/);
    const tampered = { ...headers, 'x-trellis-principal': Buffer.from(JSON.stringify({ p: { ...principal, isAdmin: true }, t: Date.now() })).toString('base64url') };
    expect(() => verifyPrincipal(tampered, 'secret-1')).toThrow(/bad signature/);
    const old = signPrincipal(principal, 'secret-1', Date.now() - 120_000);
    expect(() => verifyPrincipal(old, 'secret-1')).toThrow(/expired/);
    expect(() => verifyPrincipal({}, 'secret-1')).toThrow(/missing/);
  });
});
