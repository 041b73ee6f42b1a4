import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../../test/support/platform.js';

/**
 * Artifact file paths are saved as they are by clients that download a version (zip-slip): only relative,
 * normalized, "/"-separated paths are accepted, over REST and GraphQL alike, with an error that names the path.
 */
let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({ workers: false });
});
afterAll(async () => {
  await platform?.close();
});

const BAD_PATHS = [
  '../../../etc/passwd',
  '/etc/passwd',
  'a/../../b',
  '..\\..\\win.ini',
  'dir\\file.txt',
  '.',
  '..',
  'dir/',
  'a//b',
  './a',
  'a/./b',
  'a/...',
  'C:foo',
  'c:/windows/win.ini',
  'line\nbreak',
  '\uff0e\uff0e/\uff0e\uff0e/etc/passwd', // fullwidth "../../"
];
// A NUL byte never reaches the path rule: the edge refuses text PostgreSQL cannot store (test/foundation/bad-input.test.ts).
const GOOD_PATHS = ['train.jsonl', 'notes/readme.txt', '.hidden', 'a..b/..c/d..', 'dir/sub dir/file name.txt', 'ü/日本.txt'];

const b64 = (text: string) => Buffer.from(text).toString('base64');

function upload(collection: string, path: string) {
  return platform.fetch(`/registry/v1/artifacts/trellis/default/${collection}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${platform.adminKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ files: [{ path: 'ok.txt', content_base64: b64('fine') }, { path, content_base64: b64('x') }] }),
  });
}

function createVersion(collection: string, path: string) {
  return platform.graphql(`mutation($input: CreateArtifactVersionInput!) { createArtifactVersion(input: $input) { version files { path } } }`, {
    input: { entity: 'trellis', project: 'default', collection, files: [{ path, contentBase64: b64('x') }] },
  });
}

describe('artifact file paths', () => {
  it('refuses non-normalized, absolute and otherwise unsafe paths over REST (422 naming the path), creating nothing', async () => {
    for (const path of BAD_PATHS) {
      const response = await upload('paths-rest', path);
      const body = (await response.json()) as any;
      expect(response.status, path).toBe(422);
      expect(body.error.type, path).toBe('invalid_request_error');
      expect(body.error.message, path).toContain(`File path ${JSON.stringify(path)}`);
      expect(body.error.message, path).toContain('files.1.path');
    }
    const read = await platform.fetch('/registry/v1/artifacts/trellis/default/paths-rest/latest', { headers: { authorization: `Bearer ${platform.adminKey}` } });
    expect(read.status).toBe(404);
  });

  it('refuses them through GraphQL with the same rule and message', async () => {
    for (const path of BAD_PATHS) {
      const { body } = await createVersion('paths-graphql', path);
      expect(body.data?.createArtifactVersion ?? null, path).toBeNull();
      const [error] = body.errors ?? [];
      expect(error?.extensions, path).toMatchObject({ code: 'BAD_USER_INPUT', reason: 'VALIDATION_FAILED' });
      expect(error?.extensions?.issues?.[0], path).toMatchObject({ loc: ['input', 'files', 0, 'path'], msg: expect.stringContaining(`File path ${JSON.stringify(path)}`) });
    }
    const { body } = await platform.graphql(`{ artifactVersionByName(entity: "trellis", project: "default", collection: "paths-graphql", version: "latest") { id } }`);
    expect(body.data.artifactVersionByName).toBeNull();
  });

  it('accepts relative, normalized paths, dots inside names and non-ASCII included', async () => {
    for (const path of GOOD_PATHS) {
      const response = await upload('paths-good', path);
      expect(response.status, path).toBe(200);
      const download = await platform.fetch(`/registry/v1/artifacts/trellis/default/paths-good/latest/files/${path.split('/').map(encodeURIComponent).join('/')}`, {
        headers: { authorization: `Bearer ${platform.adminKey}` },
      });
      expect(await download.text(), path).toBe('x');
    }
    const { body } = await createVersion('paths-good', 'models/adapter_model.safetensors');
    expect(body.data.createArtifactVersion.files).toEqual([{ path: 'models/adapter_model.safetensors' }]);
  });
});
