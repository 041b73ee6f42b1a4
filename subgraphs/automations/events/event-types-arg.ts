import { BadRequestError } from '../../../platform/errors.js';

/**
 * The `types` argument of the platform-event fields (`platformEvents`, `recentPlatformEvents`): left out, every type;
 * otherwise the types named. An empty list names none — a subscription that could never yield, most likely meant as
 * "every type" — so it is refused, saying how to ask for every type.
 */
export function eventTypesArg(types: readonly string[] | null | undefined): string[] | undefined {
  if (types === null || types === undefined) return undefined;
  if (types.length === 0) throw new BadRequestError('types names no event type: leave it out for every type', { param: 'types' });
  return [...types];
}
