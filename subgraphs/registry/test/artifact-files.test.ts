import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';

/**
 * Artifacts over REST (/registry/v1/artifacts): upload a version with files, read it by v<N> or alias, download a
 * file's bytes; GraphQL serves the same contents (`artifactVersionByName { file(path) { contentBase64 } }`).
 */
let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({ workers: false });
});
afterAll(async () => {
  await platform?.close();
});

const b64 = (text: string) => Buffer.from(text).toString('base64');

async function rest(method: string, path: string, body?: unknown, key = platform.adminKey) {
  const response = await platform.fetch(path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const type = response.headers.get('content-type') ?? '';
  return { status: response.status, type, body: type.includes('json') ? ((await response.json()) as any) : Buffer.from(await response.arrayBuffer()) };
}

describe('registry artifacts over REST', () => {
  it('uploads versions, reads them by index and alias (latest = newest without an alias) and serves file bytes', async () => {
    const first = await rest('POST', '/registry/v1/artifacts/trellis/default/chats', {
      files: [{ path: 'train.jsonl', content_base64: b64('{"messages":[]}\n') }],
      metadata: { rows: 1 },
    });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ name: 'chats:v0', version: 'v0', type: 'dataset', entity: 'trellis', project: 'default', metadata: { rows: 1 } });
    expect(first.body.files).toEqual([{ path: 'train.jsonl', size: 16, digest: expect.stringMatching(/^[0-9a-f]{64}$/) }]);
    const second = await rest('POST', '/registry/v1/artifacts/trellis/default/chats', {
      files: [{ path: 'train.jsonl', content_base64: b64('second\n') }, { path: 'notes/readme.txt', content_base64: b64('hello') }],
      aliases: ['best'],
    });
    expect(second.body.version).toBe('v1');

    expect((await rest('GET', '/registry/v1/artifacts/trellis/default/chats/v0')).body.id).toBe(first.body.id);
    expect((await rest('GET', '/registry/v1/artifacts/trellis/default/chats/best')).body.id).toBe(second.body.id);
    expect((await rest('GET', '/registry/v1/artifacts/trellis/default/chats/latest')).body.id).toBe(second.body.id);
    const missing = await rest('GET', '/registry/v1/artifacts/trellis/default/chats/v7');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ type: 'not_found_error' });

    const bytes = await rest('GET', '/registry/v1/artifacts/trellis/default/chats/v1/files/notes/readme.txt');
    expect(bytes.status).toBe(200);
    expect(bytes.type).toContain('application/octet-stream');
    expect(bytes.body.toString()).toBe('hello');
    expect((await rest('GET', '/registry/v1/artifacts/trellis/default/chats/v0/files/train.jsonl')).body.toString()).toBe('{"messages":[]}\n');
    expect((await rest('GET', '/registry/v1/artifacts/trellis/default/chats/v0/files/absent.txt')).status).toBe(404);

    const graph = await platform.graphql(
      `{ artifactVersionByName(entity: "trellis", project: "default", collection: "chats", version: "v1") { version file(path: "train.jsonl") { size contentBase64 } } }`,
    );
    expect(graph.body.data.artifactVersionByName).toEqual({ version: 'v1', file: { size: 7, contentBase64: b64('second\n') } });
  });

  it('rejects bad uploads without creating anything, and hides other teams\' artifacts', async () => {
    const invalid = await rest('POST', '/registry/v1/artifacts/trellis/default/bad-alias', {
      files: [{ path: 'a.txt', content_base64: b64('x') }],
      aliases: ['not ok!'],
    });
    expect(invalid.status).toBe(422);
    expect((await rest('GET', '/registry/v1/artifacts/trellis/default/bad-alias/latest')).status).toBe(404);

    const outsider = await platform.createUser('artifact-outsider');
    const denied = await rest('POST', '/registry/v1/artifacts/trellis/default/chats', { files: [] }, outsider.key);
    expect(denied.status).toBe(403);
    // Reading another team's artifact looks exactly like reading a missing one.
    expect((await rest('GET', '/registry/v1/artifacts/trellis/default/chats/v0', undefined, outsider.key)).status).toBe(404);
    expect((await rest('GET', '/registry/v1/artifacts/trellis/default/chats/v0/files/train.jsonl', undefined, outsider.key)).status).toBe(404);
  });
});
