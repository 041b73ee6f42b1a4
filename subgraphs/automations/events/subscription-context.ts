import { TrellisError } from '../../../platform/errors.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import type { AutomationsServices } from '../services.js';

/**
 * Subscriptions execute only where the platform applies the subgraph's `subscriptionContext` hook (the public
 * graphql-ws endpoint of the composition root, the internal endpoint of the automations service) or in the
 * automation engine; each puts the subgraph's services in the context. (The gateway cannot execute subscriptions.)
 */
export interface SubscriptionContext extends GraphQLContext {
  automations: AutomationsServices;
}

export function servicesOf(context: GraphQLContext): AutomationsServices {
  const services = (context as Partial<SubscriptionContext>).automations;
  if (!services) {
    throw new TrellisError(400, 'BAD_REQUEST', 'Subscriptions are served over graphql-ws at /graphql/ws, not by the gateway');
  }
  return services;
}
