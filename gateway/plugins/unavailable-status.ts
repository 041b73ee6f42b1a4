import type { ApolloServerPlugin } from '@apollo/server';

/**
 * /graphql answers 503 with `Retry-After` when the whole operation failed because something it needs is unavailable
 * (every error UNAVAILABLE and no root field with a value): HTTP clients, proxies and load balancers then see an
 * outage they may retry, as the REST routes answer it, instead of a 200. An operation that got some data keeps 200.
 */
export function unavailableStatus<TContext extends object>(): ApolloServerPlugin<TContext> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response }) {
          if (response.body.kind !== 'single') return;
          const { data, errors } = response.body.singleResult;
          if (!errors?.length || errors.some((error) => error.extensions?.code !== 'UNAVAILABLE')) return;
          if (data && Object.values(data).some((value) => value !== null)) return;
          response.http.status = 503;
          const seconds = Math.max(...errors.map((error) => Number(error.extensions?.retryAfterSeconds) || 1));
          response.http.headers.set('retry-after', String(Math.ceil(seconds)));
        },
      };
    },
  };
}
