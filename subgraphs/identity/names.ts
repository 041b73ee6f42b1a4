import { BadRequestError } from '../../platform/errors.js';

/**
 * Entity (team), project, registry and user names appear in URLs (`/v2/{entity}/{project}/…`, `weave:///…`,
 * `wandb-artifact:///…`), so they are restricted to characters that need no escaping there.
 */
const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

export function assertValidName(kind: string, name: string): string {
  if (!NAME_PATTERN.test(name)) {
    throw new BadRequestError(
      `${kind} name "${name}" is invalid: use 1-128 letters, digits, "_", "-" or ".", starting with a letter or digit`,
      { param: kind.toLowerCase() },
    );
  }
  return name;
}
