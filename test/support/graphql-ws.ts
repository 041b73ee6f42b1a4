import { createClient, type Client, type ClientOptions } from 'graphql-ws';
import WebSocket from 'ws';

/**
 * The streaming chat completion subscription and its variables, in one place: when its `request` argument becomes
 * a typed input (ChatCompletionRequestInput), only this helper changes.
 */
export function chatCompletionChunks(prompt: string, options: { model?: string; maxTokens?: number } = {}): { query: string; variables: Record<string, unknown> } {
  return {
    query: `subscription Chat($request: ChatCompletionRequestInput!, $project: String) {
      chatCompletionChunks(request: $request, project: $project) { id model choices { index finishReason message { role content } } }
    }`,
    variables: {
      project: 'trellis/default',
      request: { model: options.model ?? 'trellis-tiny', messages: [{ role: 'USER', content: prompt }], maxTokens: options.maxTokens ?? 8, temperature: 0 },
    },
  };
}

/**
 * A graphql-ws client of the public endpoint of the platform at `baseUrl` (http://…), authenticated with `key`, not
 * retrying; `options` adds to that (event listeners, `lazy: false` to connect at once).
 */
export function graphqlWsClient(baseUrl: string, key: string, options: Pick<ClientOptions, 'on' | 'lazy'> = {}): Client {
  return createClient({
    url: `${baseUrl.replace('http', 'ws')}/graphql/ws`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${key}` },
    retryAttempts: 0,
    ...options,
  });
}

/** Every result of one operation until it completes (errors included, as results). */
export function operationResults(client: Client, request: { query: string; variables?: Record<string, unknown> }, timeoutMs = 30_000): Promise<any[]> {
  const got: any[] = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not complete within ${timeoutMs} ms: ${JSON.stringify(got)}`)), timeoutMs);
    client.subscribe(request, {
      next: (value) => void got.push(value),
      error: (error) => {
        clearTimeout(timer);
        if (Array.isArray(error)) resolve([...got, { errors: error }]);
        else reject(error instanceof Error ? error : new Error(JSON.stringify(error)));
      },
      complete: () => {
        clearTimeout(timer);
        resolve(got);
      },
    });
  });
}
