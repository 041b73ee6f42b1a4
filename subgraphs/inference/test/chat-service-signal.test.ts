import { describe, expect, it } from 'vitest';
import type { Principal } from '../../../platform/auth/principal.js';
import type { Logger } from '../../../platform/logger.js';
import type { ModelLimiter } from '../../../platform/model-access/request-limiter.js';
import type { ChatBackend } from '../backends/chat-backend.js';
import type { ModelCatalog } from '../catalog/model-catalog.js';
import type { ChatCompletion } from '../chat/chat-completion.js';
import { ChatService } from '../chat/chat.service.js';
import type { TraceSettings } from '../tracing/trace-settings.js';
import type { UsageRecorder } from '../usage/usage-recorder.js';

const principal: Principal = {
  userId: 'u1',
  username: 'ada',
  isAdmin: false,
  apiKeyId: 'k1',
  defaultEntity: 'ada',
  teams: {},
  projectAdmin: [],
  registryAdmin: [],
};

const completion: ChatCompletion = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 0,
  model: 'm',
  choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }],
} as unknown as ChatCompletion;

describe('ChatService without a caller signal (GraphQL over HTTP)', () => {
  // It used to hand every such call one shared, never-aborted signal: each upstream call added and removed its
  // listener on that long-lived signal, and its listener list kept the finished requests reachable for V8's
  // young-generation collector, which promoted them (2–4 KB a request in the requestWhole probe with a shared signal).
  it('gives each backend call a signal of its own that is not aborted', async () => {
    const signals: AbortSignal[] = [];
    const backend = {
      kind: 'openai-compatible',
      capabilities: 'all',
      complete: async (_request: unknown, signal: AbortSignal) => {
        signals.push(signal);
        return completion;
      },
      stream: () => {
        throw new Error('not used');
      },
      close: async () => undefined,
    } as unknown as ChatBackend;
    const catalog = { resolve: () => ({ id: 'm', backend }) } as unknown as ModelCatalog;
    const limiter = { enabled: false, acquire: () => ({ release: () => undefined }) } as unknown as ModelLimiter;
    const usage = { tracing: false, record: () => undefined, recordTrace: () => undefined } as unknown as UsageRecorder;
    const logger = { error: () => undefined } as unknown as Logger;
    const chat = new ChatService(catalog, limiter, usage, { isEnabled: () => false } as unknown as TraceSettings, logger);

    const body = { model: 'm', messages: [{ role: 'user', content: 'hello' }] };
    await chat.complete(body, { principal });
    await chat.complete(body, { principal });

    expect(signals).toHaveLength(2);
    expect(signals[0]).not.toBe(signals[1]);
    expect(signals.map((signal) => signal.aborted)).toEqual([false, false]);
  });
});
