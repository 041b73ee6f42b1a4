import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';
import { Receiver } from './receiver.js';
import { createAutomation, createVersion, createWebhook, ok, TEST_ENV } from './helpers.js';

let platform: TestPlatform;
let receiver: Receiver;

/** Every variable of the spec's table (plus the run ones), so each event kind shows what it fills in. */
const ALL_VARIABLES = JSON.stringify({
  event_type: '${event_type}',
  project_name: '${project_name}',
  entity_name: '${entity_name}',
  event_author: '${event_author}',
  alias: '${alias}',
  tag: '${tag}',
  artifact_collection_name: '${artifact_collection_name}',
  artifact_metadata_stage: '${artifact_metadata.stage}',
  artifact_version: '${artifact_version}',
  artifact_version_string: '${artifact_version_string}',
  run_name: '${run_name}',
  run_state: '${run_state}',
  metric_name: '${metric_name}',
  metric_value: '${metric_value}',
});

const bodiesAt = (path: string) => receiver.requests.filter((r) => r.path === path).map((r) => JSON.parse(r.body));

beforeAll(async () => {
  platform = await startTestPlatform({ env: TEST_ENV });
  receiver = await new Receiver().start();
  await ok(platform, `mutation { createRegistry(input: {entity: "trellis", name: "models"}) { name } }`);
});
afterAll(async () => {
  await platform?.close();
  await receiver?.close();
});

async function hook(name: string): Promise<string> {
  return createWebhook(platform, { name, endpointUrl: receiver.url(`/${name}`) });
}

describe('automation events', () => {
  it('registry scope: LINK_ARTIFACT and ADD_ARTIFACT_ALIAS (alias regex), created by a registry admin who is not a team admin', async () => {
    const registryAdmin = await platform.createUser('curator', { trellis: 'MEMBER' });
    await ok(platform, `mutation { grantRegistryAdmin(entity: "trellis", registry: "models", username: "curator") }`);
    const linkHook = await hook('link');
    const aliasHook = await hook('alias');
    await createAutomation(platform, { scopeKind: 'REGISTRY', scopeName: 'models', name: 'on-link', event: { type: 'LINK_ARTIFACT' }, webhookId: linkHook, payload: ALL_VARIABLES }, registryAdmin.key);
    await createAutomation(
      platform,
      { scopeKind: 'REGISTRY', scopeName: 'models', name: 'on-prod-alias', event: { type: 'ADD_ARTIFACT_ALIAS', aliasRegex: '^prod' }, webhookId: aliasHook, payload: ALL_VARIABLES },
      registryAdmin.key,
    );
    const version = await createVersion(platform, { collection: 'clf', type: 'model', metadata: { stage: 'candidate' }, aliases: ['production-in-project'] });
    await ok(platform, `mutation($id: ID!) { linkArtifactVersion(versionId: $id, target: {entity: "trellis", registry: "models", name: "classifier"}, aliases: ["staging", "production"]) { name } }`, {
      id: version.id,
    });

    await receiver.waitFor(1, (r) => r.path === '/link');
    await receiver.waitFor(1, (r) => r.path === '/alias');
    const [link] = bodiesAt('/link');
    expect(link).toMatchObject({
      event_type: 'LINK_ARTIFACT',
      project_name: 'default',
      entity_name: 'trellis',
      event_author: 'admin',
      alias: '',
      tag: '',
      artifact_collection_name: 'classifier',
      artifact_metadata_stage: 'candidate',
      artifact_version_string: 'trellis/models/classifier:v0',
      run_name: '',
    });
    expect(link.artifact_version).toMatchObject({ id: version.id, name: 'classifier:v0', registry: 'models', type: 'model' });
    // The project-collection alias is outside the registry scope; "staging" fails the regex.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const aliases = bodiesAt('/alias');
    expect(aliases).toHaveLength(1);
    expect(aliases[0]).toMatchObject({ event_type: 'ADD_ARTIFACT_ALIAS', alias: 'production', artifact_collection_name: 'classifier' });
  });

  it('RUN_STATE with run filters: only the named user\'s runs whose name matches the regex, in the watched states', async () => {
    const bob = await platform.createUser('bob', { trellis: 'MEMBER' });
    const webhookId = await hook('state');
    await createAutomation(platform, {
      name: 'failed-train-runs-of-bob',
      event: { type: 'RUN_STATE', runStates: ['FAILED'] },
      runFilter: { user: 'bob', runNameRegex: '^train-' },
      webhookId,
      payload: ALL_VARIABLES,
    });
    const runs: Record<string, string> = {};
    for (const [name, key] of [['train-1', bob.key], ['eval-1', bob.key], ['train-admin', undefined]] as const) {
      const data = await ok(platform, `mutation($name: String!) { createRun(input: {entity: "trellis", project: "default", name: $name}) { id } }`, { name }, key);
      runs[name] = data.createRun.id;
    }
    for (const [name, state] of [['train-1', 'FAILED'], ['eval-1', 'FAILED'], ['train-admin', 'FAILED']] as const) {
      await ok(platform, `mutation($id: ID!, $s: RunState!) { setRunState(runId: $id, state: $s) { state } }`, { id: runs[name], s: state });
    }
    await receiver.waitFor(1, (r) => r.path === '/state');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const bodies = bodiesAt('/state');
    expect(bodies).toHaveLength(1);
    expect(bodies[0]).toMatchObject({ event_type: 'RUN_STATE', run_name: 'train-1', run_state: 'FAILED', event_author: 'admin', project_name: 'default', artifact_version: '' });
  });

  it('RUN_METRIC: fires when the window aggregate crosses the threshold, once per run per 24 h', async () => {
    const webhookId = await hook('metric');
    await createAutomation(platform, {
      name: 'acc-avg-over-half',
      event: { type: 'RUN_METRIC', metricName: 'acc', window: 3, aggregation: 'AVG', comparison: 'GT', threshold: 0.5 },
      webhookId,
      payload: ALL_VARIABLES,
    });
    await createAutomation(platform, {
      name: 'loss-max-below',
      event: { type: 'RUN_METRIC', metricName: 'loss', window: 2, aggregation: 'MAX', comparison: 'LTE', threshold: 0.2 },
      webhookId,
      payload: ALL_VARIABLES,
    });
    const run = (await ok(platform, `mutation { createRun(input: {entity: "trellis", project: "default", name: "m1"}) { id } }`)).createRun.id;
    const log = (name: string, value: number) => ok(platform, `mutation($id: ID!, $m: [MetricInput!]!) { logRunMetrics(runId: $id, metrics: $m) { id } }`, { id: run, m: [{ name, value }] });
    // acc: window not full yet, then avg(0.9, 0.1, 0.2)=0.4, then avg(0.1,0.2,0.9)=0.4, then avg(0.2,0.9,0.9)=0.67 → fires; then no refire.
    for (const value of [0.9, 0.1, 0.2, 0.9, 0.9, 0.95]) await log('acc', value);
    // loss: max(0.5, 0.3)=0.5, max(0.3, 0.2)=0.3, max(0.2, 0.1)=0.2 → fires.
    for (const value of [0.5, 0.3, 0.2, 0.1]) await log('loss', value);
    await receiver.waitFor(2, (r) => r.path === '/metric');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const bodies = bodiesAt('/metric');
    expect(bodies.map((b) => [b.metric_name, b.metric_value])).toEqual([
      ['acc', '0.9'],
      ['loss', '0.1'],
    ]);
    expect(bodies[0]).toMatchObject({ event_type: 'RUN_METRIC', run_name: 'm1', run_state: 'RUNNING' });
  });

  it('RUN_METRIC_CHANGE: current window versus the prior window, relative decrease', async () => {
    const webhookId = await hook('change');
    await createAutomation(platform, {
      name: 'reward-drop',
      event: { type: 'RUN_METRIC_CHANGE', metricName: 'reward', window: 2, priorWindow: 2, aggregation: 'AVG', changeKind: 'RELATIVE', changeDirection: 'DECREASE', changeAmount: 0.5 },
      webhookId,
      payload: ALL_VARIABLES,
    });
    const run = (await ok(platform, `mutation { createRun(input: {entity: "trellis", project: "default", name: "c1"}) { id } }`)).createRun.id;
    // prior (10, 10) vs current (10, 8): −10 %; then prior (10, 8) vs (2, 2): −78 % → fires.
    await ok(platform, `mutation($id: ID!) { logRunMetrics(runId: $id, metrics: [{name: "reward", value: 10}, {name: "reward", value: 10}, {name: "reward", value: 10}, {name: "reward", value: 8}]) { id } }`, { id: run });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(bodiesAt('/change')).toHaveLength(0);
    await ok(platform, `mutation($id: ID!) { logRunMetrics(runId: $id, metrics: [{name: "reward", value: 2}, {name: "reward", value: 2}]) { id } }`, { id: run });
    await receiver.waitFor(1, (r) => r.path === '/change');
    expect(bodiesAt('/change')[0]).toMatchObject({ event_type: 'RUN_METRIC_CHANGE', metric_name: 'reward', metric_value: '2' });
  });

  it('a disabled automation does not fire; re-enabled, it fires for later events only', async () => {
    const webhookId = await hook('toggle');
    const id = await createAutomation(platform, { name: 'toggle', event: { type: 'ADD_ARTIFACT_TAG', tagRegex: '^toggle$' }, webhookId, payload: '{"tag":"${tag}","v":"${artifact_version_string}"}' });
    await ok(platform, `mutation($id: ID!) { setAutomationEnabled(id: $id, enabled: false) { state } }`, { id });
    await createVersion(platform, { collection: 'toggle', tags: ['toggle'] });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(bodiesAt('/toggle')).toHaveLength(0);
    const enabled = await ok(platform, `mutation($id: ID!) { setAutomationEnabled(id: $id, enabled: true) { state } }`, { id });
    expect(enabled.setAutomationEnabled.state).toBe('ACTIVE');
    await createVersion(platform, { collection: 'toggle', tags: ['toggle'] });
    await receiver.waitFor(1, (r) => r.path === '/toggle');
    expect(bodiesAt('/toggle')).toEqual([{ tag: 'toggle', v: 'trellis/default/toggle:v1' }]);
  });

  it('a catastrophic-backtracking tag regex neither stalls the engine nor blocks other automations on the same event', async () => {
    // With JavaScript's backtracking RegExp, ^(a+)+$ against 40 a's and a '-' takes ~2^40 steps: the engine would hang.
    const evilHook = await hook('evil');
    const goodHook = await hook('good');
    await createAutomation(platform, { name: 'evil', event: { type: 'ADD_ARTIFACT_TAG', tagRegex: '^(a+)+$' }, webhookId: evilHook, payload: '{"tag":"${tag}"}' });
    await createAutomation(platform, { name: 'good', event: { type: 'ADD_ARTIFACT_TAG', tagRegex: '-$' }, webhookId: goodHook, payload: '{"tag":"${tag}"}' });
    const tag = `${'a'.repeat(40)}-`;
    await createVersion(platform, { collection: 'redos', tags: [tag, 'aaaa'] });
    await receiver.waitFor(1, (r) => r.path === '/good');
    await receiver.waitFor(1, (r) => r.path === '/evil');
    expect(bodiesAt('/good')).toEqual([{ tag }]);
    expect(bodiesAt('/evil')).toEqual([{ tag: 'aaaa' }]);
  });
});

describe('automation configuration', () => {
  it('enforces roles: team admins for webhooks and secrets, project admins for project automations', async () => {
    const member = await platform.createUser('member', { trellis: 'MEMBER' });
    const webhook = await platform.graphql(`mutation { createWebhook(input: {team: "trellis", name: "x", endpointUrl: "http://127.0.0.1:1/"}) { id } }`, undefined, member.key);
    expect(webhook.body.errors?.[0].extensions.code).toBe('FORBIDDEN');
    const secret = await platform.graphql(`mutation { createSecret(team: "trellis", name: "X", value: "y") { name } }`, undefined, member.key);
    expect(secret.body.errors?.[0].extensions.code).toBe('FORBIDDEN');
    const webhookId = await hook('roles');
    const input = { entity: 'trellis', scopeKind: 'PROJECT', scopeName: 'default', name: 'by-member', event: { type: 'CREATE_ARTIFACT' }, webhookId, payload: '{}' };
    const denied = await platform.graphql(`mutation($input: CreateAutomationInput!) { createAutomation(input: $input) { id } }`, { input }, member.key);
    expect(denied.body.errors?.[0].extensions.code).toBe('FORBIDDEN');
    await ok(platform, `mutation { grantProjectAdmin(entity: "trellis", project: "default", username: "member") }`);
    const allowed = await ok(platform, `mutation($input: CreateAutomationInput!) { createAutomation(input: $input) { state createdBy } }`, { input }, member.key);
    expect(allowed.createAutomation).toEqual({ state: 'ACTIVE', createdBy: 'member' });
  });

  it('answers NOT_FOUND at input.scopeName for a project or registry that does not exist, or that the caller cannot see, and stores nothing', async () => {
    const webhookId = await hook('scopes');
    const create = async (scopeKind: 'PROJECT' | 'REGISTRY', scopeName: string, name: string, key?: string) => {
      const { body } = await platform.graphql(
        `mutation($input: CreateAutomationInput!) { createAutomation(input: $input) { id state } }`,
        { input: { entity: 'trellis', scopeKind, scopeName, name, event: { type: scopeKind === 'PROJECT' ? 'CREATE_ARTIFACT' : 'LINK_ARTIFACT' }, webhookId, payload: '{}' } },
        key,
      );
      return body;
    };
    const notFound = (body: any) => {
      expect(body.data).toBeNull();
      expect(body.errors).toHaveLength(1);
      expect(body.errors[0].extensions).toEqual({ code: 'NOT_FOUND', status: 404, field: ['input', 'scopeName'] });
      return body.errors[0].message as string;
    };
    // A team admin: a missing project or registry of the team.
    expect(notFound(await create('PROJECT', 'no-such-project', 'missing-project'))).toMatch(/project "trellis\/no-such-project"/);
    expect(notFound(await create('REGISTRY', 'no-such-registry', 'missing-registry'))).toMatch(/registry "trellis\/no-such-registry"/);

    // An admin of a project and of a registry of a team they are not a member of may not see them: the answer is
    // the one a missing scope gets, so it does not tell which exist.
    const outsider = await platform.createUser('outsider');
    for (const [kind, name] of [['Project', 'default'], ['Project', 'ghost'], ['Registry', 'models'], ['Registry', 'ghost']] as const) {
      await ok(platform, `mutation { grant${kind}Admin(entity: "trellis", ${kind.toLowerCase()}: "${name}", username: "outsider") }`);
    }
    const hidden = {
      project: notFound(await create('PROJECT', 'default', 'hidden-project', outsider.key)),
      missingProject: notFound(await create('PROJECT', 'ghost', 'ghost-project', outsider.key)),
      registry: notFound(await create('REGISTRY', 'models', 'hidden-registry', outsider.key)),
      missingRegistry: notFound(await create('REGISTRY', 'ghost', 'ghost-registry', outsider.key)),
    };
    expect(hidden.project.replace('default', 'ghost')).toBe(hidden.missingProject);
    expect(hidden.registry.replace('models', 'ghost')).toBe(hidden.missingRegistry);

    const stored = await ok(platform, `{ automations(entity: "trellis", first: 500) { nodes { name } } }`);
    const names = stored.automations.nodes.map((a: any) => a.name);
    for (const name of ['missing-project', 'missing-registry', 'hidden-project', 'ghost-project', 'hidden-registry', 'ghost-registry']) expect(names).not.toContain(name);
    // The scopes that exist and that the caller can see still take automations.
    expect((await create('PROJECT', 'default', 'visible-project')).data.createAutomation.state).toBe('ACTIVE');
    expect((await create('REGISTRY', 'models', 'visible-registry')).data.createAutomation.state).toBe('ACTIVE');
  });

  it('rejects invalid regexes, unknown variables, events a registry cannot watch and missing event fields, with clear messages', async () => {
    const webhookId = await hook('invalid');
    const attempt = async (input: Record<string, unknown>) => {
      const { body } = await platform.graphql(`mutation($input: CreateAutomationInput!) { createAutomation(input: $input) { id } }`, {
        input: { entity: 'trellis', scopeKind: 'PROJECT', scopeName: 'default', name: `bad-${Math.random()}`, webhookId, payload: '{}', event: { type: 'CREATE_ARTIFACT' }, ...input },
      });
      expect(body.errors?.[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'VALIDATION_FAILED' });
      return body.errors![0].message as string;
    };
    expect(await attempt({ event: { type: 'ADD_ARTIFACT_ALIAS', aliasRegex: '([a-z' } })).toMatch(/Invalid regular expression/);
    expect(await attempt({ event: { type: 'ADD_ARTIFACT_ALIAS' } })).toMatch(/needs an alias regular expression/);
    // Patterns use RE2 semantics (linear-time matching): backreferences and lookaround are refused when saved.
    expect(await attempt({ event: { type: 'ADD_ARTIFACT_TAG', tagRegex: '(a)\\1' } })).toMatch(/Invalid regular expression.*RE2 syntax/);
    expect(await attempt({ event: { type: 'RUN_STATE' }, runFilter: { runNameRegex: '^(?!tmp)' } })).toMatch(/Invalid regular expression/);
    expect(await attempt({ payload: '{"x": "${nope}"}' })).toMatch(/Unknown payload variable \$\{nope\}/);
    expect(await attempt({ payload: '{"x": "${ACCESS_TOKEN}"}' })).toMatch(/Unknown payload variable \$\{ACCESS_TOKEN\}/);
    expect(await attempt({ scopeKind: 'REGISTRY', scopeName: 'models', event: { type: 'RUN_STATE' } })).toMatch(/cannot be watched in a registry/);
    expect(await attempt({ event: { type: 'RUN_METRIC', metricName: 'acc' } })).toMatch(/needs a comparison/);
    expect(await attempt({ event: { type: 'RUN_STATE' }, runFilter: { runNameRegex: '*' } })).toMatch(/Invalid regular expression/);
    const list = await ok(platform, `{ automations(entity: "trellis") { nodes { name } } }`);
    expect(list.automations.nodes.some((a: any) => a.name.startsWith('bad-'))).toBe(false);
  });
});
