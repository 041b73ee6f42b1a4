import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform.js';

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform({ workers: false });
});
afterAll(() => platform?.close());

describe('federated gateway', () => {
  it('answers one query that spans identity and every family subgraph', async () => {
    const { status, body } = await platform.graphql(`{
      viewer { username defaultEntity { name } }
      project(entity: "trellis", name: "default") {
        fullName team { name } callCount runCount inferenceRequestCount trainingModelCount
      }
      team(name: "trellis") { webhookCount projects { name } }
    }`);
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    expect(body.data).toEqual({
      viewer: { username: 'admin', defaultEntity: { name: 'trellis' } },
      project: {
        fullName: 'trellis/default',
        team: { name: 'trellis' },
        callCount: 0,
        runCount: 0,
        inferenceRequestCount: 0,
        trainingModelCount: 0,
      },
      team: { webhookCount: 0, projects: [{ name: 'default' }] },
    });
  });

  it('reads rows a family subgraph stored in its own schema', async () => {
    await platform.db.root
      .insertInto('registry.runs')
      .values({ entity: 'trellis', project: 'default', name: 'r1', author: 'admin' })
      .execute();
    const { body } = await platform.graphql('{ project(entity: "trellis", name: "default") { runCount } }');
    expect(body.data.project.runCount).toBe(1);
  });

  it('lets anonymous callers introspect but not read data', async () => {
    const introspection = await platform.graphql('{ __schema { queryType { name } } }', undefined, null);
    expect(introspection.body.data.__schema.queryType.name).toBe('Query');
    const anonymous = await platform.graphql('{ viewer { username } team(name: "trellis") { name } }', undefined, null);
    expect(anonymous.body.data.viewer).toBeNull();
    expect(anonymous.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('rejects an invalid key with HTTP 401', async () => {
    const { status, body } = await platform.graphql('{ viewer { username } }', undefined, 'trl_not_a_real_key');
    expect(status).toBe(401);
    expect(body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('forbids reading a team the caller does not belong to', async () => {
    const { key } = await platform.createUser('stranger');
    const { body } = await platform.graphql('{ team(name: "trellis") { name } }', undefined, key);
    expect(body.data.team).toBeNull();
    expect(body.errors[0].extensions).toMatchObject({ code: 'FORBIDDEN', status: 403 });
  });

  it('rejects a query over the depth limit before running any of it', async () => {
    let selection = 'name';
    for (let level = 0; level < 8; level += 1) selection = `team { projects { ${selection} } }`;
    const { status, body } = await platform.graphql(
      `mutation { ensureProject(entity: "trellis", name: "deep") { ${selection} } }`,
    );
    expect(status).toBe(400);
    expect(body.errors[0].message).toMatch(/nested too deeply/);
    const check = await platform.graphql('{ project(entity: "trellis", name: "deep") { name } }');
    expect(check.body.data.project).toBeNull();
  });

  it('masks unexpected errors and keeps deliberate ones', async () => {
    const { body } = await platform.graphql('mutation { createProject(entity: "trellis", name: "bad name!") { name } }');
    expect(body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'BAD_REQUEST', status: 400 });
    expect(body.errors[0].message).toMatch(/Project name "bad name!" is invalid/);
  });
});
