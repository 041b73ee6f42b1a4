import { Arg, Ctx, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import { requirePrincipal } from '../../../platform/auth/authorize.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { ArtifactCollection, toCollection } from '../artifact/artifact.type.js';
import type { RegistryServices } from '../services.js';
import { CreateRegistryInput, Registry, toRegistry } from './registry.type.js';

@Resolver(() => Registry)
export class RegistryResolver {
  constructor(private readonly services: RegistryServices) {}

  @Query(() => Registry, { nullable: true, description: 'A registry of a team the caller belongs to' })
  async registry(
    @Arg('entity', () => String) entity: string,
    @Arg('name', () => String) name: string,
    @Ctx() context: GraphQLContext,
  ): Promise<Registry | null> {
    const row = await this.services.registries.get(requirePrincipal(context), entity, name);
    return row ? toRegistry(row) : null;
  }

  @Query(() => [Registry], { description: 'Registries of a team the caller belongs to' })
  async registries(@Arg('entity', () => String) entity: string, @Ctx() context: GraphQLContext): Promise<Registry[]> {
    return (await this.services.registries.list(requirePrincipal(context), entity)).map(toRegistry);
  }

  @Mutation(() => Registry, { description: 'Team admins: create a registry owned by the team' })
  async createRegistry(@Arg('input', () => CreateRegistryInput) input: CreateRegistryInput, @Ctx() context: GraphQLContext): Promise<Registry> {
    return toRegistry(await this.services.registries.create(requirePrincipal(context), input));
  }

  @FieldResolver(() => [ArtifactCollection])
  async collections(@Root() registry: Registry): Promise<ArtifactCollection[]> {
    return (await this.services.store.collectionsOf(registry.entity, 'REGISTRY', registry.name)).map(toCollection);
  }
}
