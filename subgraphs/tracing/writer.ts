import { requirePrincipal, requireTeamMember } from '../../platform/auth/authorize.js';
import type { GraphQLContext } from '../../platform/graphql/context.js';
import type { Writer } from './call/call.service.js';

/** The caller as the tracing services see it: who writes, and the check that they may write to an entity. */
export function writerOf(context: GraphQLContext): Writer {
  const principal = requirePrincipal(context);
  return { userId: principal.userId, assertWriter: (entity) => void requireTeamMember(context, entity) };
}

/** v2 routes name the project in the path: the caller must belong to its entity. */
export function projectWriterOf(context: GraphQLContext, entity: string, project: string): { writer: Writer; projectId: string } {
  requireTeamMember(context, entity);
  return { writer: writerOf(context), projectId: `${entity}/${project}` };
}
