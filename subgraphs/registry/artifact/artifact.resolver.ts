import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { pageSize, pagingDescriptions, type Connection } from '../../../platform/graphql/connection.js';
import { NAME_PAGES, pageByIndex, VERSION_PAGING } from '../paging.js';
import { requirePrincipal } from '../../../platform/auth/authorize.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import type { RegistryServices } from '../services.js';
import {
  ArtifactCollection,
  ArtifactVersion,
  ArtifactVersionConnection,
  CollectionRefInput,
  CreateArtifactVersionInput,
  NamedArtifactAlias,
  toArtifactVersion,
  toCollection,
} from './artifact.type.js';

@Resolver(() => ArtifactCollection)
export class ArtifactResolver {
  constructor(private readonly services: RegistryServices) {}

  @Query(() => ArtifactVersion, { nullable: true, description: 'A version by id, as seen from its own collection (null when absent or not readable)' })
  async artifactVersion(@Arg('id', () => ID, { description: 'Id of the version' }) id: string, @Ctx() context: GraphQLContext): Promise<ArtifactVersion | null> {
    const found = await this.services.artifacts.version(requirePrincipal(context), id);
    return found ? toArtifactVersion(await this.services.artifacts.payload(found.version, found.collection)) : null;
  }

  @Query(() => ArtifactVersion, {
    nullable: true,
    description: 'A version of a project collection by name: `version` is v<N>, an alias, or omitted for latest (null when absent or not readable)',
  })
  async artifactVersionByName(
    @Arg('entity', () => String, { description: 'Team of the project' }) entity: string,
    @Arg('project', () => String, { description: 'The project' }) project: string,
    @Arg('collection', () => String, { description: 'Collection name' }) collection: string,
    @Arg('version', () => String, { nullable: true, description: 'v<N>, an alias, or omitted for the latest' }) version: string | null,
    @Ctx() context: GraphQLContext,
  ): Promise<ArtifactVersion | null> {
    const found = await this.services.artifacts.versionByName(requirePrincipal(context), { entity, project, collection, version });
    return found ? toArtifactVersion(await this.services.artifacts.payload(found.version, found.collection)) : null;
  }

  @Query(() => [NamedArtifactAlias], {
    description:
      "Named aliases of the caller's teams' project collections of a type — every alias but `latest` and training's per-step `step<N>` — newest versions first (inference lists promoted checkpoints from it)",
  })
  async namedArtifactAliases(
    @Arg('type', () => String, { description: 'Artifact type of the collections (e.g. model)' }) type: string,
    @Arg('first', () => Int, { nullable: true, description: pagingDescriptions(NAME_PAGES, 'alias').first }) first: number | null,
    @Ctx() context: GraphQLContext,
  ): Promise<NamedArtifactAlias[]> {
    const rows = await this.services.artifacts.namedAliases(requirePrincipal(context), type, pageSize(first, NAME_PAGES));
    return rows.map((row) => Object.assign(new NamedArtifactAlias(), { ...row, createdAt: row.created_at }));
  }

  @Mutation(() => ArtifactCollection, { description: 'Create an empty collection in a project (team members) or a registry (registry admins)' })
  async createArtifactCollection(
    @Arg('collection', () => CollectionRefInput, { description: 'Where to create it and its name' }) collection: CollectionRefInput,
    @Arg('type', () => String, { defaultValue: 'dataset', description: 'Artifact type of its versions' }) type: string,
    @Arg('description', () => String, { nullable: true, description: 'What it holds' }) description: string | null,
    @Ctx() context: GraphQLContext,
  ): Promise<ArtifactCollection> {
    return toCollection(await this.services.artifacts.createCollection(requirePrincipal(context), collection, type, description ?? null));
  }

  @Mutation(() => ArtifactVersion, { description: 'Create the next version of a project collection, with files, metadata, aliases and tags' })
  async createArtifactVersion(
    @Arg('input', () => CreateArtifactVersionInput, { description: 'The version' }) input: CreateArtifactVersionInput,
    @Ctx() context: GraphQLContext,
  ): Promise<ArtifactVersion> {
    const { version, collection } = await this.services.artifacts.createVersion(requirePrincipal(context), input);
    return toArtifactVersion(await this.services.artifacts.payload(version, collection));
  }

  @Mutation(() => ArtifactVersion, { description: 'Link a version into a registry (or project) collection; returns it as seen there' })
  async linkArtifactVersion(
    @Arg('versionId', () => ID, { description: 'Id of the version' }) versionId: string,
    @Arg('target', () => CollectionRefInput, { description: 'The collection to link it into' }) target: CollectionRefInput,
    @Arg('aliases', () => [String], { nullable: true, description: 'Aliases to point at it there' }) aliases: string[] | null,
    @Ctx() context: GraphQLContext,
  ): Promise<ArtifactVersion> {
    const { version, collection } = await this.services.artifacts.linkVersion(requirePrincipal(context), versionId, target, aliases ?? []);
    return toArtifactVersion(await this.services.artifacts.payload(version, collection));
  }

  @Mutation(() => ArtifactVersion, { description: 'Add (or move) an alias; default collection: the version\'s own' })
  async addArtifactAlias(
    @Arg('versionId', () => ID, { description: 'Id of the version' }) versionId: string,
    @Arg('alias', () => String, { description: 'The alias' }) alias: string,
    @Arg('collection', () => CollectionRefInput, { nullable: true, description: 'The collection the alias lives in (default: the version\'s own)' }) collection: CollectionRefInput | null,
    @Ctx() context: GraphQLContext,
  ): Promise<ArtifactVersion> {
    const principal = requirePrincipal(context);
    const version = await this.services.artifacts.addAlias(principal, versionId, alias, collection ?? null);
    const found = (await this.services.artifacts.version(principal, version.id))!;
    return toArtifactVersion(await this.services.artifacts.payload(found.version, found.collection));
  }

  @Mutation(() => ArtifactVersion, { description: 'Tag a version (tags are not moved: a version may share a tag with others)' })
  async addArtifactTag(
    @Arg('versionId', () => ID, { description: 'Id of the version' }) versionId: string,
    @Arg('tag', () => String, { description: 'The tag' }) tag: string,
    @Ctx() context: GraphQLContext,
  ): Promise<ArtifactVersion> {
    const principal = requirePrincipal(context);
    await this.services.artifacts.addTag(principal, versionId, tag);
    const found = (await this.services.artifacts.version(principal, versionId))!;
    return toArtifactVersion(await this.services.artifacts.payload(found.version, found.collection));
  }

  @FieldResolver(() => ArtifactVersionConnection, { description: 'Versions in this collection, oldest first' })
  async versions(
    @Root() collection: ArtifactCollection,
    @Arg('first', () => Int, { nullable: true, description: VERSION_PAGING.first }) first: number | null,
    @Arg('after', () => String, { nullable: true, description: VERSION_PAGING.after }) after: string | null,
  ): Promise<Connection<ArtifactVersion>> {
    const row = (await this.services.store.collectionById(collection.id))!;
    return pageByIndex(first, after, (page) => this.services.store.membersOf(collection.id, page), async (members) => {
      const versions: ArtifactVersion[] = [];
      for (const member of members) {
        const version = (await this.services.store.version(member.version_id))!;
        versions.push(toArtifactVersion(await this.services.artifacts.payload(version, row)));
      }
      return versions;
    });
  }
}
