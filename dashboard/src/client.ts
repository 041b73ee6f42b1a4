import { Client, cacheExchange, fetchExchange, subscriptionExchange, CombinedError } from 'urql';
import { createClient as createWsClient, type Client as WsClient } from 'graphql-ws';

/** The graph's endpoints on this origin: the dashboard uses nothing else. */
export const GRAPHQL_URL = '/graphql';
export function graphqlWsUrl(): string {
  const { protocol, host } = window.location;
  return `${protocol === 'https:' ? 'wss:' : 'ws:'}//${host}/graphql/ws`;
}

export interface GraphClient {
  client: Client;
  close(): void;
}

/** urql over /graphql (queries, mutations) and graphql-ws over /graphql/ws (subscriptions), both with the key. */
export function createGraphClient(key: string): GraphClient {
  const authorization = `Bearer ${key}`;
  let ws: WsClient | undefined;
  const wsClient = () =>
    (ws ??= createWsClient({
      url: graphqlWsUrl(),
      connectionParams: { authorization },
      lazy: true,
      // Moving between pages unsubscribes and subscribes again: keep the socket a little while instead of closing it
      // (possibly while it is still connecting) and opening a new one.
      lazyCloseTimeout: 5000,
      retryAttempts: 5,
    }));
  const client = new Client({
    url: GRAPHQL_URL,
    requestPolicy: 'cache-and-network',
    // POST always: Apollo's CSRF prevention refuses a GET without a preflight header, and keys stay out of URLs anyway.
    preferGetMethod: false,
    fetchOptions: () => ({ headers: { authorization } }),
    exchanges: [
      cacheExchange,
      fetchExchange,
      subscriptionExchange({
        forwardSubscription(request) {
          const input = { ...request, query: request.query ?? '' };
          return {
            subscribe(sink) {
              const unsubscribe = wsClient().subscribe(input, sink);
              return { unsubscribe };
            },
          };
        },
      }),
    ],
  });
  return { client, close: () => void ws?.dispose() };
}

/** A refusal as the server put it: `CODE: message` (e.g. "FORBIDDEN: you are not a member of team x"). */
export interface DescribedError {
  code: string | null;
  message: string;
}

export function describeError(error: CombinedError | Error | unknown): DescribedError[] {
  if (error instanceof CombinedError) {
    if (error.graphQLErrors.length > 0) {
      return error.graphQLErrors.map((graphQLError) => {
        const code = graphQLError.extensions?.code;
        return { code: typeof code === 'string' ? code : null, message: graphQLError.message };
      });
    }
    const response = error.response as { status?: number } | undefined;
    if (error.networkError) {
      return [{ code: response?.status === 401 ? 'UNAUTHENTICATED' : 'NETWORK', message: error.networkError.message }];
    }
    return [{ code: null, message: error.message }];
  }
  return [{ code: null, message: error instanceof Error ? error.message : String(error) }];
}

export function formatError(error: DescribedError): string {
  return error.code ? `${error.code}: ${error.message}` : error.message;
}
