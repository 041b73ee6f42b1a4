import type { Authenticator } from './authenticator.js';
import type { IdentityService } from './identity-service.js';

/** What the identity subgraph's resolvers are constructed with. */
export interface IdentityServices {
  identity: IdentityService;
  authenticator: Authenticator;
}
