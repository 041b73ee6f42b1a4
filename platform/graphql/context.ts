import type { FastifyBaseLogger } from 'fastify';
import type { Principal } from '../auth/principal.js';

/** What every resolver of every subgraph receives, whichever topology delivered the request. */
export interface GraphQLContext {
  principal: Principal | null;
  requestId: string;
  /** The request's logger (carries the request id); a pino logger. */
  logger: FastifyBaseLogger;
}
