import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { PRINCIPAL_HEADER, verifyPrincipal } from '../../platform/auth/internal-signature.js';
import type { Principal } from '../../platform/auth/principal.js';
import { invalidApiKeyError } from '../../gateway/gateway.js';

export interface GraphQLAuthenticationOptions {
  /** undefined: no credentials sent; null: credentials rejected. */
  principalOf(request: FastifyRequest): Promise<Principal | null | undefined>;
  /** Distributed topology: subgraph services call /graphql for their callers with the signed identity header. */
  internalSecret?: string;
}

/**
 * /graphql's credentials, checked on the headers (an onRequest hook) so a bad key is refused before its body is
 * read. The principal is left on `request.principal` for the GraphQL context. A request without credentials stays
 * anonymous (principal null; its body is held to the anonymous limit, see body-admission.ts).
 */
export function authenticateGraphQLRequests(options: GraphQLAuthenticationOptions): onRequestHookHandler {
  return async (request, reply) => {
    if (options.internalSecret && request.headers.authorization === undefined && request.headers[PRINCIPAL_HEADER] !== undefined) {
      // A subgraph service acting for its caller (the identity the gateway signed for it in the first place).
      try {
        request.principal = verifyPrincipal(request.headers, options.internalSecret);
        return;
      } catch {
        return refuse(reply);
      }
    }
    const principal = await options.principalOf(request);
    if (principal === null) return refuse(reply);
    request.principal = principal ?? null;
  };
}

/** The answer Apollo gave when the context function rejected the key: 401 with a GraphQL error. */
function refuse(reply: FastifyReply): FastifyReply {
  const error = invalidApiKeyError();
  return reply.code(401).send({ errors: [{ message: error.message, extensions: { code: error.extensions.code, status: 401 } }] });
}
