import { performance } from 'node:perf_hooks';
import { BadRequestError, TrellisError } from '../../../platform/errors.js';
import { RequestAbortController } from '../../../platform/async/request-abort-controller.js';
import type { Logger } from '../../../platform/logger.js';
import type { Lease, ModelLimiter } from '../../../platform/model-access/request-limiter.js';
import { validateOrThrow } from '../../../platform/validation.js';
import type { BackendReport } from '../backends/chat-backend.js';
import type { CatalogEntry, ModelCatalog } from '../catalog/model-catalog.js';
import { servesEmbeddings } from '../catalog/model-definition.schema.js';
import { attributionOf, DEFAULT_USAGE_PROJECT, type Attribution } from '../chat/attribution.js';
import { answeredStatus, type ChatCaller } from '../chat/chat.service.js';
import type { UsageRecorder } from '../usage/usage-recorder.js';
import type { EmbeddingsResponse } from './embeddings.js';
import { EmbeddingsRequestSchema } from './embeddings-request.schema.js';

/**
 * Embeddings (POST /inference/v1/embeddings): attributed, validated, resolved, admitted under the same per-key and
 * per-project limits as chat, answered by the model's backend, and recorded as usage (prompt tokens) for every
 * outcome — the chat service's steps for a request that generates nothing (so it is not traced as a call).
 */
export class EmbeddingsService {
  constructor(
    private readonly catalog: ModelCatalog,
    private readonly limiter: ModelLimiter,
    private readonly usage: UsageRecorder,
    private readonly logger: Logger,
  ) {}

  async create(raw: unknown, caller: ChatCaller): Promise<EmbeddingsResponse> {
    const started = performance.now();
    const createdAt = new Date();
    const report: BackendReport = { attempts: 0 };
    const model = typeof (raw as { model?: unknown })?.model === 'string' ? (raw as { model: string }).model.slice(0, 512) : '';
    const user = (raw as { user?: unknown })?.user;
    let attribution: Attribution = { entity: caller.principal.defaultEntity, project: DEFAULT_USAGE_PROJECT };
    let entry: CatalogEntry | undefined;
    let lease: Lease | undefined;
    let response: EmbeddingsResponse | undefined;
    let failure: unknown;
    try {
      attribution = attributionOf(caller.principal, caller.project);
      const request = validateOrThrow(EmbeddingsRequestSchema, raw, 'body');
      entry = this.catalog.resolve(request.model, caller.principal);
      if (!servesEmbeddings(entry.definition) || !entry.backend.embed) {
        throw new BadRequestError(`Model '${request.model}' does not serve embeddings`, { param: 'model' });
      }
      lease = await this.limiter.acquire(caller.principal.apiKeyId, `${attribution.entity}/${attribution.project}`);
      response = await entry.backend.embed({ body: request, report }, caller.signal ?? new RequestAbortController().signal);
      return response;
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      lease?.release();
      const known = failure instanceof TrellisError ? failure : undefined;
      if (failure !== undefined && !known) this.logger.error({ err: failure }, 'embeddings request failed unexpectedly');
      const promptTokens = response?.usage.prompt_tokens ?? 0;
      this.usage.record({
        createdAt,
        entity: attribution.entity,
        project: attribution.project,
        model,
        backend: entry?.backend.kind ?? null,
        deployment: report.deployment ?? null,
        apiKeyId: caller.principal.apiKeyId,
        userId: caller.principal.userId,
        endUser: typeof user === 'string' ? user.slice(0, 512) : null,
        stream: false,
        status: failure === undefined ? 200 : answeredStatus(known),
        errorCode: failure === undefined ? null : (known?.code ?? 'INTERNAL'),
        errorMessage: failure === undefined ? null : (known?.message ?? 'Internal server error').slice(0, 1000),
        promptTokens,
        completionTokens: 0,
        totalTokens: response?.usage.total_tokens ?? promptTokens,
        latencyMs: performance.now() - started,
        firstTokenMs: null,
        attempts: report.attempts,
        requestId: caller.requestId ?? null,
      });
    }
  }
}
