import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../support/platform.js';

/**
 * The W&B GraphQL the Weave SDKs send to `<WANDB_BASE_URL>/graphql` (Basic `api:<key>`), verbatim from their source:
 * the TypeScript SDK's DefaultEntity on `weave.init('project')`, and the Python SDK's project check and creation
 * (wandb_thin internal_api: PROJECT_QUERY, UPSERT_PROJECT_MUTATION).
 */
const DEFAULT_ENTITY = `
query DefaultEntity {
    viewer {
        username
        defaultEntity {
            name
        }
    }
}
`;
const PROJECT = `
        query Project($name: String!, $entityName: String!) {
            project(name: $name, entityName: $entityName) {
                name
            }
        }
`;
const UPSERT_PROJECT = `
    mutation UpsertModel($name: String!, $id: String, $entity: String!, $description: String, $repo: String)  {
        upsertModel(input: { id: $id, name: $name, entityName: $entity, description: $description, repo: $repo }) {
            model {
                name
                description
            }
        }
    }
`;

let platform: TestPlatform;
let member: { key: string };
beforeAll(async () => {
  platform = await startTestPlatform({ workers: false });
  member = await platform.createUser('pyweaver', { pyteam: 'MEMBER' });
});
afterAll(() => platform?.close());

async function wandbGraphql(query: string, variables: Record<string, unknown> = {}) {
  const response = await platform.fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Basic ${Buffer.from(`api:${member.key}`).toString('base64')}` },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, body: (await response.json()) as any };
}

describe("W&B GraphQL as the Weave SDKs send it", () => {
  it('answers DefaultEntity with the entity object', async () => {
    const { status, body } = await wandbGraphql(DEFAULT_ENTITY);
    expect(status).toBe(200);
    expect(body).toEqual({ data: { viewer: { username: 'pyweaver', defaultEntity: { name: 'pyweaver' } } } });
  });

  it("checks a project with W&B's argument names, creates it with upsertModel, and describes it", async () => {
    expect((await wandbGraphql(PROJECT, { name: 'py-evals', entityName: 'pyteam' })).body).toEqual({ data: { project: null } });

    const created = await wandbGraphql(UPSERT_PROJECT, { name: 'py-evals', entity: 'pyteam', id: null, description: null, repo: null });
    expect(created.body).toEqual({ data: { upsertModel: { model: { name: 'py-evals', description: null } } } });
    expect((await wandbGraphql(PROJECT, { name: 'py-evals', entityName: 'pyteam' })).body).toEqual({ data: { project: { name: 'py-evals' } } });

    // Again: the same project, now described; nothing else created.
    const described = await wandbGraphql(UPSERT_PROJECT, { name: 'py-evals', entity: 'pyteam', description: 'offline evals' });
    expect(described.body.data.upsertModel.model).toEqual({ name: 'py-evals', description: 'offline evals' });
    const projects = await platform.graphql('{ team(name: "pyteam") { projects { name description } } }');
    expect(projects.body.data.team.projects).toEqual([{ name: 'py-evals', description: 'offline evals' }]);
  });

  it('refuses what it cannot do, changing nothing', async () => {
    const outsider = await wandbGraphql(UPSERT_PROJECT, { name: 'intruder', entity: 'trellis' });
    expect(outsider.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const bothNames = await wandbGraphql('{ project(name: "x", entity: "pyteam", entityName: "trellis") { name } }');
    expect(bothNames.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const noOwner = await wandbGraphql('{ project(name: "x") { name } }');
    expect(noOwner.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const badName = await wandbGraphql(UPSERT_PROJECT, { name: 'no/slashes', entity: 'pyteam' });
    expect(badName.body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const projects = await platform.graphql('{ team(name: "trellis") { projects { name } } }');
    expect(projects.body.data.team.projects.map((project: { name: string }) => project.name)).not.toContain('intruder');
  });
});
