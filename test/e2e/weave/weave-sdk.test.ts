import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../support/platform.js';

const run = promisify(execFile);
const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'run-weave.mjs');

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(async () => {
  await platform?.close();
});

/**
 * The published `weave` npm SDK (0.11.1) traces nested ops, one of which throws, into our /traces server, then reads
 * them back with its call-filter API (`getCalls`/`getCall`).
 */
describe('Weave TypeScript SDK against the platform', () => {
  it('stores the calls with their parent/child links, inputs, outputs and the exception', async () => {
    const member = await platform.createUser('weaver', { sdkteam: 'MEMBER' });
    const { stdout } = await run(process.execPath, [script, 'sdkteam/weave-e2e'], {
      env: {
        PATH: process.env.PATH,
        HOME: '/tmp/trellis-weave-e2e-home',
        WF_TRACE_SERVER_URL: `${platform.url}/traces`,
        WANDB_BASE_URL: platform.url,
        WANDB_API_KEY: member.key,
      },
      timeout: 60_000,
    });
    const reported = JSON.parse(stdout.trim().split('\n').at(-1)!);
    expect(reported.result).toEqual({ sum: 42, caught: 'exploded: on purpose' });

    const { body } = await platform.graphql(
      `{ project(entity: "sdkteam", name: "weave-e2e") {
        calls(filter: { traceRootsOnly: true }) { nodes { id traceId opName inputs output exception endedAt
          children { nodes { id traceId opName inputs output exception parent { id } } } } } } }`,
      {},
      member.key,
    );
    const roots = body.data.project.calls.nodes;
    expect(roots).toHaveLength(1);
    const root = roots[0];
    expect(root.opName).toMatch(/^weave:\/\/\/sdkteam\/weave-e2e\/op\/pipeline:/);
    // JavaScript functions have no parameter names at runtime: the SDK names inputs arg0, arg1, …
    expect(root.inputs).toMatchObject({ arg0: 41 });
    expect(root.output).toEqual({ sum: 42, caught: 'exploded: on purpose' });
    expect(root.exception).toBeNull();
    expect(root.endedAt).not.toBeNull();
    const byName = Object.fromEntries(root.children.nodes.map((child: any) => [child.opName.replace(/^.*\/op\/([^:]+):.*$/, '$1'), child]));
    expect(Object.keys(byName).sort()).toEqual(['add', 'explode']);
    for (const child of root.children.nodes) {
      expect(child.traceId).toBe(root.traceId);
      expect(child.parent).toEqual({ id: root.id });
    }
    expect(byName.add).toMatchObject({ inputs: { arg0: 41, arg1: 1 }, output: 42, exception: null });
    expect(byName.explode.inputs).toMatchObject({ arg0: 'on purpose' });
    expect(byName.explode.exception).toContain('exploded: on purpose');

    // The SDK's getCalls/getCall read them back through /calls/stream_query filters (op version wildcard included).
    expect(reported.queried).toEqual({
      roots: [root.opName],
      adds: [{ inputs: expect.objectContaining({ arg0: 41, arg1: 1 }), output: 42, parent_id: root.id }],
      children: ['add', 'explode'],
      byId: { id: root.id, output: { sum: 42, caught: 'exploded: on purpose' } },
      rootId: root.id,
    });

    // The ops themselves were stored as objects whose source file the SDK uploaded.
    const ops = await platform.graphql(`{ project(entity: "sdkteam", name: "weave-e2e") { traceObjects(filter: { isOp: true }) { nodes { objectId val } } } }`, {}, member.key);
    const objects = ops.body.data.project.traceObjects.nodes;
    expect(objects.map((o: any) => o.objectId).sort()).toEqual(['add', 'explode', 'pipeline']);
    const digest = objects[0].val.files['obj.py'];
    const file = await platform.graphql(`query($d: String!) { project(entity: "sdkteam", name: "weave-e2e") { traceFileContent(digest: $d) } }`, { d: digest }, member.key);
    expect(Buffer.from(file.body.data.project.traceFileContent, 'base64').toString()).toContain('function');
  });
});
