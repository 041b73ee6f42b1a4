import type { GraphCaller, PlatformGraph } from '../../platform/graphql/platform-graph.js';

const VIEWER_TEAMS = `query TracingActingMember { viewer { isAdmin teams { team } } }`;

/**
 * Whether the caller is still a member of the entity (or a platform administrator), read now from identity through
 * the graph — not from the principal the caller carries, which tracing's background work builds or keeps from the
 * request that started it. A monitor's judge and a platform-run evaluation act for someone only while this holds.
 */
export async function isActingMember(graph: PlatformGraph, caller: GraphCaller, entity: string): Promise<boolean> {
  const { viewer } = await graph.execute<{ viewer: { isAdmin: boolean; teams: { team: string }[] } | null }>(VIEWER_TEAMS, {}, caller);
  return !!viewer && (viewer.isAdmin || viewer.teams.some((membership) => membership.team === entity));
}
