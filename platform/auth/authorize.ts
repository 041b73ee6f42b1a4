import { ForbiddenError, UnauthenticatedError } from '../errors.js';
import type { GraphQLContext } from '../graphql/context.js';
import { isProjectAdmin, isRegistryAdmin, isTeamAdmin, isTeamMember, type Principal } from './principal.js';

/** Guards used by resolvers: each returns the principal or throws the error the client should see. */
export function requirePrincipal(context: GraphQLContext): Principal {
  if (!context.principal) throw new UnauthenticatedError();
  return context.principal;
}

export function requireTeamMember(context: GraphQLContext, entity: string): Principal {
  const principal = requirePrincipal(context);
  if (!isTeamMember(principal, entity)) throw new ForbiddenError(`You are not a member of entity "${entity}"`);
  return principal;
}

export function requireTeamAdmin(context: GraphQLContext, entity: string): Principal {
  const principal = requirePrincipal(context);
  if (!isTeamAdmin(principal, entity)) throw new ForbiddenError(`Only admins of team "${entity}" may do this`);
  return principal;
}

export function requireProjectAdmin(context: GraphQLContext, entity: string, project: string): Principal {
  const principal = requirePrincipal(context);
  if (!isProjectAdmin(principal, entity, project)) {
    throw new ForbiddenError(`Only admins of project "${entity}/${project}" may do this`);
  }
  return principal;
}

export function requireRegistryAdmin(context: GraphQLContext, entity: string, registry: string): Principal {
  const principal = requirePrincipal(context);
  if (!isRegistryAdmin(principal, entity, registry)) {
    throw new ForbiddenError(`Only admins of registry "${entity}/${registry}" may do this`);
  }
  return principal;
}

export function requirePlatformAdmin(context: GraphQLContext): Principal {
  const principal = requirePrincipal(context);
  if (!principal.isAdmin) throw new ForbiddenError('Only platform administrators may do this');
  return principal;
}
