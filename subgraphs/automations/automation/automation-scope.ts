import { NotFoundError, TrellisError } from '../../../platform/errors.js';
import type { GraphCaller, PlatformGraph } from '../../../platform/graphql/platform-graph.js';
import type { ScopeKind } from '../db/database.js';

/** Where an automation watches: a team's project or registry, by name. */
export interface AutomationScope {
  entity: string;
  scopeKind: ScopeKind;
  scopeName: string;
}

/**
 * Asks the subgraph that owns a scope whether it exists for the caller: `project` (identity) or `registry`
 * (registry), through the platform graph as the caller. Automations never read those subgraphs' tables, and the
 * owners apply their own access rules.
 */
const SCOPE_QUERIES: Record<ScopeKind, { operation: string; field: 'project' | 'registry' }> = {
  PROJECT: { operation: 'query AutomationScopeProject($entity: String!, $name: String!) { project(entity: $entity, name: $name) { name } }', field: 'project' },
  REGISTRY: { operation: 'query AutomationScopeRegistry($entity: String!, $name: String!) { registry(entity: $entity, name: $name) { name } }', field: 'registry' },
};

/** The codes with which an owner says "not for you": answered as absent, so they tell nothing about existence. */
const HIDDEN = new Set(['NOT_FOUND', 'FORBIDDEN']);

export class AutomationScopes {
  constructor(private readonly graph: PlatformGraph) {}

  /**
   * Resolves when the scope exists and the caller can see it; otherwise NOT_FOUND at `input.scopeName` — also for
   * a scope the caller may not see, so an automation cannot be used to probe another team's names. Other failures
   * of the graph (UNAVAILABLE…) pass through: nothing is stored either way.
   */
  async requireVisible(scope: AutomationScope, caller: GraphCaller): Promise<void> {
    const { operation, field } = SCOPE_QUERIES[scope.scopeKind];
    let found: boolean;
    try {
      const data = await this.graph.execute<Record<string, { name: string } | null>>(operation, { entity: scope.entity, name: scope.scopeName }, caller);
      found = data[field] !== null && data[field] !== undefined;
    } catch (error) {
      if (!(error instanceof TrellisError) || !HIDDEN.has(error.publicCode)) throw error;
      found = false;
    }
    if (found) return;
    const error = new NotFoundError(`No ${field} "${scope.entity}/${scope.scopeName}" that you can see`);
    error.field = ['input', 'scopeName'];
    throw error;
  }
}
