/** A project by its two names, as the family APIs address it. */
export interface ProjectName {
  entity: string;
  project: string;
}

/** The identity operation that creates a project on first write (403 for callers outside the entity). */
export const ENSURE_PROJECT_OPERATION = `mutation EnsureProject($entity: String!, $project: String!) {
  ensureProject(entity: $entity, name: $project) { name }
}`;

/** Identity's read of a project: null when it does not exist, 403 for callers outside the entity. */
export const PROJECT_EXISTS_OPERATION = `query ProjectExists($entity: String!, $project: String!) {
  project(entity: $entity, name: $project) { name }
}`;

/**
 * Projects this process has seen exist, so that routes with `ensureProject` run identity's `ensureProject`
 * operation only on a project's first write here (and routes with `readsProject` ask identity whether it exists
 * only until it has been seen). Projects are never deleted or renamed, so an entry cannot go
 * stale. Only existence is remembered, never who may write: the route's own operation authorizes the caller on
 * every request. Failed ensures are not remembered and concurrent first writes are not merged (each runs the
 * idempotent operation with its own caller, so one caller's 403 is never another's answer).
 */
export class KnownProjects {
  private readonly known = new Set<string>();

  constructor(private readonly capacity = 10_000) {}

  async ensure(project: ProjectName, ensureWithIdentity: () => Promise<unknown>): Promise<void> {
    const key = `${project.entity}/${project.project}`;
    if (this.known.has(key)) return;
    await ensureWithIdentity();
    // Bounded: when full, start over (the next write of each project re-checks once).
    if (this.known.size >= this.capacity) this.known.clear();
    this.known.add(key);
  }
}
