import { TrellisError } from '../../../platform/errors.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import type { AutomationsServices } from '../services.js';

/**
 * Subscriptions execute only through the two entry points the automations subgraph owns — its graphql-ws
 * endpoint and the automation engine — and both put the subgraph's services in the context. (The gateway cannot
 * execute subscriptions.)
 */
export interface SubscriptionContext extends GraphQLContext {
  automations: AutomationsServices;
}

export function servicesOf(context: GraphQLContext): AutomationsServices {
  const services = (context as Partial<SubscriptionContext>).automations;
  if (!services) {
    throw new TrellisError(400, 'BAD_REQUEST', 'Subscriptions are served by the automations WebSocket endpoint (/graphql/ws), not the gateway');
  }
  return services;
}
