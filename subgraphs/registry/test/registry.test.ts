import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../platform/logger.js';
import { PlatformEventStream, START_CURSOR } from '../../../platform/events/index.js';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import { readSettled, settledCursor } from '../../../test/support/events.js';

let platform: TestPlatform;
let events: PlatformEventStream;

beforeAll(async () => {
  platform = await startTestPlatform({ workers: false });
  events = new PlatformEventStream(platform.db.root, platform.databaseUrl, createLogger({ level: 'silent' }));
});
afterAll(async () => {
  await events?.close();
  await platform?.close();
});

const CREATE_VERSION = `mutation($input: CreateArtifactVersionInput!) {
  createArtifactVersion(input: $input) { id name version collection digest metadata aliases tags files { path size digest } }
}`;

describe('registry', () => {
  it('creates versions with files, metadata, aliases and tags, each change writing its event in the same transaction', async () => {
    const before = await settledCursor(events);
    const { body } = await platform.graphql(CREATE_VERSION, {
      input: {
        entity: 'trellis',
        project: 'default',
        collection: 'weights',
        type: 'model',
        metadata: { accuracy: 0.93, note: 'first' },
        files: [{ path: 'model.bin', contentBase64: Buffer.from('abc').toString('base64') }],
        aliases: ['latest'],
        tags: ['baseline'],
      },
    });
    expect(body.errors).toBeUndefined();
    const version = body.data.createArtifactVersion;
    expect(version).toMatchObject({ name: 'weights:v0', version: 'v0', aliases: ['latest'], tags: ['baseline'], metadata: { accuracy: 0.93 } });
    expect(version.files).toEqual([{ path: 'model.bin', size: 3, digest: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad' }]);

    const page = await readSettled(events, before);
    expect(page.events.map((event) => event.type)).toEqual(['CREATE_ARTIFACT', 'ADD_ARTIFACT_ALIAS', 'ADD_ARTIFACT_TAG']);
    expect(page.events[1]).toMatchObject({ entity: 'trellis', project: 'default', registry: null, author: 'admin', payload: { alias: 'latest' } });
  });

  it('links into a registry collection (LINK_ARTIFACT with the registry), and a rejected request writes no event', async () => {
    const created = await platform.graphql(CREATE_VERSION, { input: { entity: 'trellis', project: 'default', collection: 'weights', type: 'model' } });
    const versionId = created.body.data.createArtifactVersion.id;
    expect((await platform.graphql(`mutation { createRegistry(input: {entity: "trellis", name: "models"}) { name } }`)).body.errors).toBeUndefined();
    const before = await settledCursor(events);
    const linked = await platform.graphql(
      `mutation($id: ID!) { linkArtifactVersion(versionId: $id, target: {entity: "trellis", registry: "models", name: "prod-weights"}, aliases: ["production"]) { name registry aliases } }`,
      { id: versionId },
    );
    expect(linked.body.errors).toBeUndefined();
    expect(linked.body.data.linkArtifactVersion).toEqual({ name: 'prod-weights:v0', registry: 'models', aliases: ['production'] });
    const page = await readSettled(events, before);
    expect(page.events.map((event) => [event.type, event.registry, event.project])).toEqual([
      ['LINK_ARTIFACT', 'models', 'default'],
      ['ADD_ARTIFACT_ALIAS', 'models', 'default'],
    ]);

    const member = await platform.createUser('reg-member', { trellis: 'MEMBER' });
    const denied = await platform.graphql(
      `mutation($id: ID!) { linkArtifactVersion(versionId: $id, target: {entity: "trellis", registry: "models", name: "x"}) { name } }`,
      { id: versionId },
      member.key,
    );
    expect(denied.body.errors?.[0].extensions.code).toBe('FORBIDDEN');
    const invalid = await platform.graphql(`mutation($id: ID!) { addArtifactAlias(versionId: $id, alias: "bad alias!") { id } }`, { id: versionId });
    expect(invalid.body.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'VALIDATION_FAILED', field: ['alias'] });
    expect((await events.read(await settledCursor(events))).events).toEqual([]);
    expect((await readSettled(events, before)).events).toHaveLength(2);
  });

  it('runs: state changes and logged metrics write RUN_STATE and RUN_METRIC events', async () => {
    const before = await settledCursor(events);
    const run = await platform.graphql(`mutation { createRun(input: {entity: "trellis", project: "default", name: "r1"}) { id state author } }`);
    const runId = run.body.data.createRun.id;
    expect(run.body.data.createRun).toMatchObject({ state: 'RUNNING', author: 'admin' });
    await platform.graphql(`mutation($id: ID!) { logRunMetrics(runId: $id, metrics: [{name: "loss", value: 0.5}, {name: "loss", value: 0.4}]) { id } }`, { id: runId });
    await platform.graphql(`mutation($id: ID!) { setRunState(runId: $id, state: FINISHED) { state } }`, { id: runId });
    const history = await platform.graphql(`query($id: ID!) { run(id: $id) { metricHistory(name: "loss") { step value } } }`, { id: runId });
    expect(history.body.data.run.metricHistory).toEqual([{ step: 0, value: 0.5 }, { step: 1, value: 0.4 }]);
    const page = await readSettled(events, before);
    expect(page.events.map((event) => event.type)).toEqual(['RUN_STATE', 'RUN_METRIC', 'RUN_METRIC', 'RUN_STATE']);
    expect(page.events[2]!.payload).toMatchObject({ run: { name: 'r1' }, metric: { name: 'loss', value: 0.4, step: 1 } });
    expect(page.events[3]!.payload).toMatchObject({ state: 'FINISHED', previousState: 'RUNNING' });
  });
});
