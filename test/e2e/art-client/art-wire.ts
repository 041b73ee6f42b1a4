import type { TestPlatform } from '../../support/platform.js';

/**
 * Requests as the OpenPipe ART client (0.5.18, `art.serverless.client.Client`) sends them to `training_url`. Its
 * client is the OpenAI Python SDK's AsyncAPIClient: every request carries the SDK's default headers, among them
 * `Content-Type: application/json` even when there is no body (`models.delete`, a body-less POST), plus ART's
 * `X-Stainless-Async: false` and `Authorization: Bearer <key>`. A body-less DELETE goes out without a
 * Content-Length (httpx sends none), a body-less POST with `Content-Length: 0`.
 */
export interface ArtResponse {
  status: number;
  body: any;
}

export function artClient(platform: TestPlatform, key = platform.adminKey) {
  const headers = {
    authorization: `Bearer ${key}`,
    'content-type': 'application/json',
    accept: 'application/json',
    'user-agent': 'AsyncOpenAI/Python 1.109.1',
    'x-stainless-lang': 'python',
    'x-stainless-package-version': '1.109.1',
    'x-stainless-async': 'false',
    'x-stainless-retry-count': '0',
  };
  return async function request(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<ArtResponse> {
    const response = await platform.fetch(`/training/v1${path}`, {
      method,
      headers,
      body: body !== undefined ? JSON.stringify(body) : method === 'POST' ? '' : undefined,
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? null : JSON.parse(text) };
  };
}

export type ArtRequest = ReturnType<typeof artClient>;

/** ServerlessBackend._model_inference_name: the model's checkpoint name, `:step{N}` when a step is asked for. */
export function inferenceName(model: { entity: string; project: string; name: string }, step?: number): string {
  const name = `wandb-artifact:///${model.entity}/${model.project}/${model.name}`;
  return step === undefined ? name : `${name}:step${step}`;
}

/** ServerlessBackend._get_step: the newest checkpoint's step, 0 when the model has none. */
export async function getStep(art: ArtRequest, modelId: string): Promise<number> {
  const page = await art('GET', `/preview/models/${modelId}/checkpoints?limit=1&order=desc`);
  if (page.status !== 200) throw new Error(`checkpoints: ${page.status} ${JSON.stringify(page.body)}`);
  return page.body.data[0]?.step ?? 0;
}

/**
 * ServerlessBackend's wait for a job: list events every second (here every 200 ms) with `after` = the last event's
 * id, following `has_more`, until `training_ended` or `training_failed`.
 */
export async function pollJobEvents(art: ArtRequest, jobId: string, timeoutMs = 90_000) {
  const events: { id: string; type: string; data: Record<string, any> }[] = [];
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const after = events.at(-1)?.id;
    const page = await art('GET', `/preview/training-jobs/${jobId}/events${after ? `?after=${after}` : ''}`);
    if (page.status !== 200) throw new Error(`events: ${page.status} ${JSON.stringify(page.body)}`);
    events.push(...page.body.data);
    const last = events.at(-1);
    if (last && (last.type === 'training_ended' || last.type === 'training_failed')) return events;
    if (!page.body.has_more) await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`job ${jobId} did not end; events so far: ${JSON.stringify(events)}`);
}
