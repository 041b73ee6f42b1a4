import { BadRequestError } from '../../../platform/errors.js';
import type { ChatBackend } from '../backends/chat-backend.js';
import type { ChatCompletionRequest } from './chat-request.schema.js';

/** Request fields every backend handles itself: they are not "optional parameters" a backend may lack. */
const CORE_FIELDS = new Set(['model', 'messages', 'stream', 'stream_options']);

/**
 * A backend that cannot honour a parameter the client set must say so (400 naming it) rather than ignore it.
 * `null` counts as "not set", as it does for OpenAI.
 */
export function assertParametersSupported(backend: ChatBackend, model: string, request: ChatCompletionRequest): void {
  if (backend.capabilities === 'all') return;
  for (const [name, value] of Object.entries(request)) {
    if (CORE_FIELDS.has(name) || value === null || value === undefined) continue;
    if (!backend.capabilities.has(name)) {
      throw new BadRequestError(`Model '${model}' does not support the parameter '${name}'`, { param: name });
    }
  }
}
