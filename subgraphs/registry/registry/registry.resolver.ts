import { Arg, Ctx, FieldResolver, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { Connection } from '../../../platform/graphql/connection.js';
import { requirePrincipal } from '../../../platform/auth/authorize.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { ArtifactCollectionConnection, toCollection, type ArtifactCollection } from '../artifact/artifact.type.js';
import { COLLECTION_PAGING, pageByName, REGISTRY_PAGING } from '../paging.js';
import type { RegistryServices } from '../services.js';
import { CreateRegistryInput, Registry, RegistryConnection, toRegistry } from './registry.type.js';

@Resolver(() => Registry)
export class RegistryResolver {
  constructor(private readonly services: RegistryServices) {}

  @Query(() => Registry, { nullable: true, description: 'A registry of a team the caller belongs to' })
  async registry(
    @Arg('entity', () => String, { description: 'The team' }) entity: string,
    @Arg('name', () => String, { description: 'Registry name' }) name: string,
    @Ctx() context: GraphQLContext,
  ): Promise<Registry | null> {
    const row = await this.services.registries.get(requirePrincipal(context), entity, name);
    return row ? toRegistry(row) : null;
  }

  @Query(() => RegistryConnection, { description: 'Registries of a team the caller belongs to, by name (none for other teams)' })
  registries(
    @Arg('entity', () => String, { description: 'The team' }) entity: string,
    @Arg('first', () => Int, { nullable: true, description: REGISTRY_PAGING.first }) first: number | null,
    @Arg('after', () => String, { nullable: true, description: REGISTRY_PAGING.after }) after: string | null,
    @Ctx() context: GraphQLContext,
  ): Promise<Connection<Registry>> {
    const principal = requirePrincipal(context);
    return pageByName(first, after, (page) => this.services.registries.list(principal, entity, page), toRegistry);
  }

  @Mutation(() => Registry, { description: 'Team admins: create a registry owned by the team' })
  async createRegistry(@Arg('input', () => CreateRegistryInput, { description: 'The registry' }) input: CreateRegistryInput, @Ctx() context: GraphQLContext): Promise<Registry> {
    return toRegistry(await this.services.registries.create(requirePrincipal(context), input));
  }

  @FieldResolver(() => ArtifactCollectionConnection, { description: "The registry's collections, by name" })
  collections(
    @Root() registry: Registry,
    @Arg('first', () => Int, { nullable: true, description: COLLECTION_PAGING.first }) first: number | null,
    @Arg('after', () => String, { nullable: true, description: COLLECTION_PAGING.after }) after: string | null,
  ): Promise<Connection<ArtifactCollection>> {
    return pageByName(first, after, (page) => this.services.store.collectionsOf(registry.entity, 'REGISTRY', registry.name, page), toCollection);
  }
}
