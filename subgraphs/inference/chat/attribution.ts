import { isTeamMember, type Principal } from '../../../platform/auth/principal.js';
import { BadRequestError, ForbiddenError } from '../../../platform/errors.js';
import { DEFAULT_USAGE_PROJECT } from '../../../platform/model-access/limits.js';

/** Where a request's usage is counted: a team (entity) and a project of it. */
export interface Attribution {
  entity: string;
  project: string;
}

/** Without a project header, usage goes to the caller's default entity, project `inference`. */
export { DEFAULT_USAGE_PROJECT };

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/**
 * Reads `Compat-Project: <team>/<project>` (or the OpenAI SDK's `OpenAI-Project`, same value). A bare
 * `<project>` names a project of the caller's default entity. The caller must belong to the team (403).
 */
export function attributionOf(principal: Principal, header: string | null | undefined): Attribution {
  const value = header?.trim();
  if (!value) return { entity: principal.defaultEntity, project: DEFAULT_USAGE_PROJECT };
  const parts = value.split('/');
  if (parts.length > 2 || !parts.every((part) => NAME.test(part))) {
    throw new BadRequestError(`Invalid project "${value}": send Compat-Project: <team>/<project>`, { param: 'Compat-Project' });
  }
  const [entity, project] = parts.length === 2 ? [parts[0]!, parts[1]!] : [principal.defaultEntity, parts[0]!];
  if (!isTeamMember(principal, entity)) {
    throw new ForbiddenError(`You cannot use project "${entity}/${project}": you are not a member of "${entity}"`);
  }
  return { entity, project };
}
