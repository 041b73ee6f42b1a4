import type { Static } from '@sinclair/typebox';
import { isTeamAdmin, isTeamMember, type Principal } from '../../../platform/auth/principal.js';
import { ConflictError, ForbiddenError } from '../../../platform/errors.js';
import { validateOrThrow } from '../../../platform/validation.js';
import { CreateRegistrySchema } from '../registry.schemas.js';
import type { NamePage, RegistryRow, RegistryStore } from '../store.js';

export type CreateRegistry = Static<typeof CreateRegistrySchema>;

/** Registries belong to an entity (team); its admins create them and may delegate with grantRegistryAdmin. */
export class RegistryService {
  constructor(private readonly store: RegistryStore) {}

  async create(principal: Principal, input: CreateRegistry): Promise<RegistryRow> {
    validateOrThrow(CreateRegistrySchema, input, 'input');
    if (!isTeamAdmin(principal, input.entity)) throw new ForbiddenError(`Only admins of team "${input.entity}" may do this`);
    const row = await this.store.insertRegistry({
      entity: input.entity,
      name: input.name,
      description: input.description ?? null,
      createdBy: principal.username,
    });
    if (!row) throw new ConflictError(`Registry "${input.entity}/${input.name}" already exists`);
    return row;
  }

  async get(principal: Principal, entity: string, name: string): Promise<RegistryRow | null> {
    if (!isTeamMember(principal, entity)) return null;
    return (await this.store.registry(entity, name)) ?? null;
  }

  /** A team's registries by name (none for callers outside the team). */
  async list(principal: Principal, entity: string, page: NamePage = {}): Promise<RegistryRow[]> {
    if (!isTeamMember(principal, entity)) return [];
    return this.store.registriesOf(entity, page);
  }
}
