import { BadRequestError } from '../../../platform/errors.js';
import type { ChatBackend } from '../backends/chat-backend.js';
import { EmbeddedBackend } from '../backends/embedded/embedded-backend.js';
import type { EmbeddedModelRuntime } from '../backends/embedded/embedded-runtime.js';
import { OpenAICompatibleBackend } from '../backends/openai-compatible/openai-compatible-backend.js';
import type { InferenceConfig } from '../inference-config.js';
import { rootOf, type ModelDefinition } from './model-definition.schema.js';

/**
 * Builds the backend that serves a catalog model. Throws BadRequestError for a definition that cannot be served
 * (so registering it fails instead of every later request).
 */
export function createBackend(
  definition: ModelDefinition,
  config: InferenceConfig,
  env: Readonly<Record<string, string | undefined>>,
  embeddedRuntime: EmbeddedModelRuntime | undefined,
): ChatBackend {
  switch (definition.backend) {
    case 'openai-compatible': {
      const deployments = definition.deployments ?? [];
      if (deployments.length === 0) {
        throw new BadRequestError(`Model '${definition.id}': an openai-compatible model needs at least one deployment`, { param: 'deployments' });
      }
      return new OpenAICompatibleBackend(
        definition.id,
        deployments.map((deployment, index) => {
          if (deployment.api_key_env && env[deployment.api_key_env] === undefined) {
            throw new BadRequestError(
              `Model '${definition.id}': deployment ${index} reads its key from ${deployment.api_key_env}, which is not set`,
              { param: `deployments.${index}.api_key_env` },
            );
          }
          return {
            label: `${definition.id}#${index}`,
            baseUrl: deployment.base_url,
            apiKey: deployment.api_key ?? (deployment.api_key_env ? env[deployment.api_key_env] : undefined),
            upstreamModel: deployment.model ?? rootOf(definition),
            timeoutMs: deployment.timeout_ms ?? config.upstreamTimeoutMs,
            connections: config.upstreamConnections,
          };
        }),
        config.cooldownMs,
      );
    }
    case 'embedded':
      if (!embeddedRuntime) {
        throw new BadRequestError(`Model '${definition.id}': this process runs no embedded model runtime`, { param: 'backend' });
      }
      return new EmbeddedBackend(embeddedRuntime, rootOf(definition));
  }
}
