import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '../../../platform/graphql/connection.js';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';

/**
 * The registry graph as a dashboard meets it: a project's runs (newest first), its artifact collections and their
 * versions, a team's registries and their collections, each a connection with bounded pages and opaque cursors.
 */
let platform: TestPlatform;

async function ok(query: string, variables?: Record<string, unknown>): Promise<any> {
  const { body } = await platform.graphql(query, variables);
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data;
}

beforeAll(async () => {
  platform = await startTestPlatform({ workers: false });
  await ok('mutation { ensureProject(entity: "trellis", name: "paged") { name } }');
  for (let i = 0; i < 5; i++) await ok(`mutation { createRun(input: { entity: "trellis", project: "paged", name: "run-${i}" }) { id } }`);
  for (const name of ['c-a', 'c-b', 'c-c']) {
    await ok(`mutation($input: CreateArtifactVersionInput!) { createArtifactVersion(input: $input) { id } }`, { input: { entity: 'trellis', project: 'paged', collection: name } });
  }
  for (let i = 0; i < 4; i++) {
    await ok(`mutation($input: CreateArtifactVersionInput!) { createArtifactVersion(input: $input) { id } }`, { input: { entity: 'trellis', project: 'paged', collection: 'many', metadata: { i } } });
  }
  for (const name of ['reg-a', 'reg-b', 'reg-c']) await ok(`mutation { createRegistry(input: { entity: "trellis", name: "${name}" }) { name } }`);
  for (const name of ['x', 'y', 'z']) await ok(`mutation { createArtifactCollection(collection: { entity: "trellis", registry: "reg-a", name: "${name}" }) { id } }`);
});
afterAll(async () => {
  await platform?.close();
});

/** Every node of a connection, `first` at a time; `at` picks the connection out of the data. */
async function walk(query: string, at: (data: any) => any, first: number, variables: Record<string, unknown> = {}): Promise<{ nodes: any[]; pages: number }> {
  const nodes: any[] = [];
  let after: string | null = null;
  for (let pages = 1; pages <= 20; pages++) {
    const page = at(await ok(query, { ...variables, first, after }));
    expect(page.pageInfo.hasPreviousPage).toBe(after !== null);
    nodes.push(...page.nodes);
    if (!page.pageInfo.hasNextPage) return { nodes, pages };
    after = page.pageInfo.endCursor;
  }
  throw new Error('too many pages');
}

const PAGE_INFO = 'pageInfo { hasNextPage hasPreviousPage endCursor }';

describe('connections', () => {
  it("pages a project's runs newest first", async () => {
    const { nodes, pages } = await walk(
      `query($first: Int, $after: String) { project(entity: "trellis", name: "paged") { runCount runs(first: $first, after: $after) { nodes { name state } ${PAGE_INFO} } } }`,
      (data) => data.project.runs,
      2,
    );
    expect(nodes.map((run) => run.name)).toEqual(['run-4', 'run-3', 'run-2', 'run-1', 'run-0']);
    expect(pages).toBe(3);
  });

  it("pages a project's collections by name, and a collection's versions oldest first", async () => {
    const collections = await walk(
      `query($first: Int, $after: String) { project(entity: "trellis", name: "paged") { artifactCollections(first: $first, after: $after) { nodes { name } ${PAGE_INFO} } } }`,
      (data) => data.project.artifactCollections,
      2,
    );
    expect(collections.nodes.map((c) => c.name)).toEqual(['c-a', 'c-b', 'c-c', 'many']);
    const versions = await walk(
      `query($first: Int, $after: String) { project(entity: "trellis", name: "paged") { artifactCollections(first: 1, after: "${encodeCursor('c-c')}") {
        nodes { name versions(first: $first, after: $after) { nodes { version metadata } ${PAGE_INFO} } } } } }`,
      (data) => data.project.artifactCollections.nodes[0].versions,
      3,
    );
    expect(versions.nodes.map((v) => [v.version, v.metadata.i])).toEqual([
      ['v0', 0],
      ['v1', 1],
      ['v2', 2],
      ['v3', 3],
    ]);
    expect(versions.pages).toBe(2);
  });

  it("pages a team's registries and a registry's collections by name", async () => {
    const registries = await walk(
      `query($first: Int, $after: String) { registries(entity: "trellis", first: $first, after: $after) { nodes { name collections(first: 2) { nodes { name } pageInfo { hasNextPage } } } ${PAGE_INFO} } }`,
      (data) => data.registries,
      2,
    );
    expect(registries.nodes.map((r) => r.name)).toEqual(['reg-a', 'reg-b', 'reg-c']);
    expect(registries.nodes[0].collections).toEqual({ nodes: [{ name: 'x' }, { name: 'y' }], pageInfo: { hasNextPage: true } });
  });

  it('refuses pages over the maximum and cursors of other lists', async () => {
    // Through a variable: a literal this large is refused earlier, by the gateway's cost limit.
    const tooMany = await platform.graphql('query($first: Int) { project(entity: "trellis", name: "paged") { runs(first: $first) { nodes { id } } } }', { first: 501 });
    expect(tooMany.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: ['first'] });
    for (const query of [
      `{ project(entity: "trellis", name: "paged") { runs(after: "${encodeCursor('c-a')}") { nodes { id } } } }`,
      `{ registries(entity: "trellis", after: "${encodeCursor(3)}") { nodes { name } } }`,
      `{ registries(entity: "trellis", after: "not a cursor") { nodes { name } } }`,
    ]) {
      const { body } = await platform.graphql(query);
      expect(body.errors[0].extensions, query).toMatchObject({ code: 'BAD_USER_INPUT', field: ['after'] });
    }
  });
});
