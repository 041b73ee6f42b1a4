import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signPrincipal } from '../../../platform/auth/internal-signature.js';
import { freePort } from '../../../platform/db/embedded-postgres.js';
import { createTestDatabase } from '../../support/database.js';
import { spawnEntry, waitForHttp, type NodeProcess } from '../../support/processes.js';
import { ADMIN_KEY } from '../../support/platform.js';

/**
 * SFT with the training subgraph as its own service (distributed topology): at submission it reads the dataset from
 * the registry through the gateway process (TRELLIS_GATEWAY_URL, the caller's identity in the signed header), and its
 * embedded worker trains on the copy it stored. Everything but training runs in the gateway process.
 */
const processes: NodeProcess[] = [];
let gatewayUrl: string;

beforeAll(async () => {
  const databaseUrl = await createTestDatabase();
  const [trainingPort, gatewayPort] = [await freePort(), await freePort()];
  gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  const common = { DATABASE_URL: databaseUrl, TRELLIS_INTERNAL_SECRET: randomBytes(32).toString('hex'), HOST: '127.0.0.1', TRELLIS_BOOTSTRAP_API_KEY: ADMIN_KEY };
  const training = spawnEntry('server/serve-subgraph.ts', ['training'], { ...common, PORT: String(trainingPort), TRELLIS_GATEWAY_URL: `${gatewayUrl}/graphql` });
  processes.push(training);
  await waitForHttp(`http://127.0.0.1:${trainingPort}/healthz`, training, 90_000);
  const gateway = spawnEntry('server/main.ts', [], {
    ...common,
    PORT: String(gatewayPort),
    TRELLIS_SUBGRAPH_URLS: `training=http://127.0.0.1:${trainingPort}/graphql`,
  });
  processes.push(gateway);
  await waitForHttp(`${gatewayUrl}/healthz`, gateway, 90_000);
}, 200_000);

afterAll(async () => {
  for (const process of processes) process.kill('SIGTERM');
  await Promise.all(processes.map((process) => process.exited));
});

async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(`${gatewayUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_KEY}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, body: (await response.json()) as any };
}

describe('SFT with training as a separate service', () => {
  it('resolves training_data_url through the gateway as the caller and trains on the stored copy', async () => {
    const line = JSON.stringify({ messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }] });
    const upload = await call('POST', '/registry/v1/artifacts/trellis/default/greetings', {
      files: [{ path: 'train.jsonl', content_base64: Buffer.from(`${line}\n${line}\n`).toString('base64') }],
    });
    expect(upload.status).toBe(200);
    const model = await call('POST', '/training/v1/preview/models', { entity: null, project: 'default', name: 'dist-sft', base_model: 'trellis-tiny', return_existing: true });
    expect(model.status).toBe(200);

    const missing = await call('POST', '/training/v1/preview/sft-training-jobs', { model_id: model.body.id, training_data_url: 'wandb-artifact:///trellis/default/absent:v0' });
    expect(missing.status).toBe(422);
    expect(missing.body.error).toMatchObject({ param: 'training_data_url', message: expect.stringContaining('no artifact version') });

    const job = await call('POST', '/training/v1/preview/sft-training-jobs', { model_id: model.body.id, training_data_url: 'wandb-artifact:///trellis/default/greetings:v0' });
    expect(job.status).toBe(200);
    const deadline = Date.now() + 90_000;
    let status = 'QUEUED';
    while (!['SUCCEEDED', 'FAILED'].includes(status) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      status = (await call('GET', `/training/v1/preview/training-jobs/${job.body.id}`)).body.status;
    }
    expect(status).toBe('SUCCEEDED');
    expect((await call('GET', `/training/v1/preview/models/${model.body.id}/checkpoints`)).body.data.map((c: { step: number }) => c.step)).toEqual([1]);
  });

  it('streams checkpoint completions from the training service (graphql-ws behind the gateway)', async () => {
    const response = await fetch(`${gatewayUrl}/training/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'trellis-tiny', messages: [{ role: 'user', content: 'hi' }], max_tokens: 4, temperature: 0, stream: true }),
    });
    expect(response.status).toBe(200);
    const data = (await response.text()).split('\n\n').filter((block) => block.startsWith('data: ')).map((block) => block.slice(6));
    expect(data.at(-1)).toBe('[DONE]');
    expect(JSON.parse(data[0]!)).toMatchObject({ object: 'chat.completion.chunk', choices: [{ delta: { role: 'assistant' } }] });

    // Counted in inference's usage, which runs in the gateway process (a `training.chat_completion` event).
    const query = '{ team(name: "trellis") { inferenceUsage(groupBy: [PROJECT, MODEL, STATUS]) { project model status requests } } }';
    const deadline = Date.now() + 10_000;
    let usage: unknown[] = [];
    while (usage.length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      usage = (await call('POST', '/graphql', { query })).body.data?.team?.inferenceUsage ?? [];
    }
    expect(usage).toEqual([{ project: 'inference', model: 'trellis-tiny', status: 200, requests: 1 }]);
  });

  it('the gateway refuses an identity header not signed with the platform\'s secret', async () => {
    const admin = { userId: 'x', username: 'admin', isAdmin: true, apiKeyId: '', defaultEntity: 'trellis', teams: {}, projectAdmin: [], registryAdmin: [] };
    const response = await fetch(`${gatewayUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...signPrincipal(admin, 'not-the-secret') },
      body: JSON.stringify({ query: '{ viewer { username } }' }),
    });
    expect(response.status).toBe(401);
  });
});
