import { execFile } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../../support/platform.js';

const run = promisify(execFile);
const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'run-weave.mjs');
const dataDir = `/tmp/trellis-weave-https-${process.pid}`;

let platform: TestPlatform;
let certFile: string;
let trusting: Agent;
beforeAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
  platform = await startTestPlatform({ env: { TRELLIS_DATA_DIR: dataDir, TRELLIS_TLS_SELF_SIGNED: 'true' } });
  certFile = path.join(dataDir, 'tls', 'cert.pem');
  trusting = new Agent({ connect: { ca: await readFile(certFile) } });
});
afterAll(async () => {
  await trusting?.close();
  await platform?.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** A request to the platform that trusts its self-signed certificate, without following redirects. */
function get(pathname: string, headers: Record<string, string> = {}) {
  return undiciFetch(`${platform.url}${pathname}`, { dispatcher: trusting, redirect: 'manual', headers });
}

/**
 * The set-up Weave's README shows, with nothing Trellis-specific: `weave.init('project')` (no entity) with only
 * WANDB_BASE_URL and WANDB_API_KEY. The SDK turns the base URL into `https://<host>`, asks `<base>/graphql` for
 * `viewer { username defaultEntity { name } }` and sends the traces to `<base>/traces`; the process trusts the
 * platform's self-signed certificate through NODE_EXTRA_CA_CERTS, as docs/tracing.md tells users.
 */
describe('Weave TypeScript SDK, weave.init("project") over the HTTPS listener', () => {
  it('resolves the default entity, records the calls there and prints links that open the dashboard', async () => {
    expect(platform.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const member = await platform.createUser('initweaver', { inittraces: 'MEMBER' });
    const { stdout } = await run(process.execPath, [script, 'weave-readme'], {
      env: {
        PATH: process.env.PATH,
        HOME: `${dataDir}/home`,
        WANDB_BASE_URL: platform.url,
        WANDB_API_KEY: member.key,
        NODE_EXTRA_CA_CERTS: certFile,
      },
      timeout: 60_000,
    });
    const reported = JSON.parse(stdout.trim().split('\n').at(-1)!);
    expect(reported.result).toEqual({ sum: 42, caught: 'exploded: on purpose' });

    // The calls are in the default entity's project: the user's personal entity.
    const viewer = await undiciFetch(`${platform.url}/graphql`, {
      dispatcher: trusting,
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`api:${member.key}`).toString('base64')}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'query DefaultEntity { viewer { username defaultEntity { name } } }' }),
    });
    expect(await viewer.json()).toEqual({ data: { viewer: { username: 'initweaver', defaultEntity: { name: 'initweaver' } } } });
    expect(reported.queried.roots).toHaveLength(1);
    expect(reported.queried.roots[0]).toMatch(/^weave:\/\/\/initweaver\/weave-readme\/op\/pipeline:/);

    // The link the SDK printed for the root call, on the platform's own host, opens the dashboard's call page.
    const link = stdout.match(/https:\/\/\S+\/r\/call\/\S+/)?.[0];
    expect(link).toBe(`${platform.url}/initweaver/weave-readme/r/call/${reported.queried.rootId}`);
    const redirected = await get(new URL(link!).pathname);
    expect(redirected.status).toBe(302);
    expect(redirected.headers.get('location')).toBe(`/ui/calls/initweaver/weave-readme/${reported.queried.rootId}`);
  }, 90_000);

  it('redirects the object, op and project links the SDKs print to the dashboard pages for them', async () => {
    const cases: [string, string][] = [
      ['/team-a/proj/weave/objects/my-dataset/versions/abc123', '/ui/objects/team-a/proj/my-dataset/abc123'],
      ['/team-a/proj/weave/ops/predict/versions/def456', '/ui/objects/team-a/proj/predict/def456'],
      ['/team-a/proj/weave', '/ui/traces?project=team-a%2Fproj'],
    ];
    for (const [link, location] of cases) {
      const response = await get(link);
      expect(response.status, link).toBe(302);
      expect(response.headers.get('location'), link).toBe(location);
    }
  });

  it('refuses plain HTTP on the HTTPS port', async () => {
    const plain = platform.url.replace('https://', 'http://');
    await expect(fetch(`${plain}/healthz`).then((response) => response.status)).rejects.toThrow();
  });
});
