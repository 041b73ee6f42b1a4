import type { FastifyBaseLogger } from 'fastify';
import type { Principal } from '../auth/principal.js';

/** What every resolver of every subgraph receives, whichever topology delivered the request. */
export interface GraphQLContext {
  principal: Principal | null;
  requestId: string;
  /** The request's logger (carries the request id); a pino logger. */
  logger: FastifyBaseLogger;
  /**
   * Aborted when the HTTP client that made the request goes away (set by the REST adapter), so a resolver doing
   * long upstream work can cancel it. Absent for requests that cannot be cancelled this way.
   */
  signal?: AbortSignal;
}
