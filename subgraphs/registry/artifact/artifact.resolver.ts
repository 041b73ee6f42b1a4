import { Arg, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { requirePrincipal } from '../../../platform/auth/authorize.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import type { RegistryServices } from '../services.js';
import {
  ArtifactCollection,
  ArtifactVersion,
  CollectionRefInput,
  CreateArtifactVersionInput,
  toArtifactVersion,
  toCollection,
} from './artifact.type.js';

@Resolver(() => ArtifactCollection)
export class ArtifactResolver {
  constructor(private readonly services: RegistryServices) {}

  @Query(() => ArtifactVersion, { nullable: true })
  async artifactVersion(@Arg('id', () => ID) id: string, @Ctx() context: GraphQLContext): Promise<ArtifactVersion | null> {
    const found = await this.services.artifacts.version(requirePrincipal(context), id);
    return found ? toArtifactVersion(await this.services.artifacts.payload(found.version, found.collection)) : null;
  }

  @Query(() => ArtifactVersion, {
    nullable: true,
    description: 'A version of a project collection by name: `version` is v<N>, an alias, or omitted for latest (null when absent or not readable)',
  })
  async artifactVersionByName(
    @Arg('entity', () => String) entity: string,
    @Arg('project', () => String) project: string,
    @Arg('collection', () => String) collection: string,
    @Arg('version', () => String, { nullable: true }) version: string | null,
    @Ctx() context: GraphQLContext,
  ): Promise<ArtifactVersion | null> {
    const found = await this.services.artifacts.versionByName(requirePrincipal(context), { entity, project, collection, version });
    return found ? toArtifactVersion(await this.services.artifacts.payload(found.version, found.collection)) : null;
  }

  @Mutation(() => ArtifactCollection, { description: 'Create an empty collection in a project (team members) or a registry (registry admins)' })
  async createArtifactCollection(
    @Arg('collection', () => CollectionRefInput) collection: CollectionRefInput,
    @Arg('type', () => String, { defaultValue: 'dataset' }) type: string,
    @Arg('description', () => String, { nullable: true }) description: string | null,
    @Ctx() context: GraphQLContext,
  ): Promise<ArtifactCollection> {
    return toCollection(await this.services.artifacts.createCollection(requirePrincipal(context), collection, type, description ?? null));
  }

  @Mutation(() => ArtifactVersion, { description: 'Create the next version of a project collection, with files, metadata, aliases and tags' })
  async createArtifactVersion(
    @Arg('input', () => CreateArtifactVersionInput) input: CreateArtifactVersionInput,
    @Ctx() context: GraphQLContext,
  ): Promise<ArtifactVersion> {
    const { version, collection } = await this.services.artifacts.createVersion(requirePrincipal(context), input);
    return toArtifactVersion(await this.services.artifacts.payload(version, collection));
  }

  @Mutation(() => ArtifactVersion, { description: 'Link a version into a registry (or project) collection; returns it as seen there' })
  async linkArtifactVersion(
    @Arg('versionId', () => ID) versionId: string,
    @Arg('target', () => CollectionRefInput) target: CollectionRefInput,
    @Arg('aliases', () => [String], { nullable: true }) aliases: string[] | null,
    @Ctx() context: GraphQLContext,
  ): Promise<ArtifactVersion> {
    const { version, collection } = await this.services.artifacts.linkVersion(requirePrincipal(context), versionId, target, aliases ?? []);
    return toArtifactVersion(await this.services.artifacts.payload(version, collection));
  }

  @Mutation(() => ArtifactVersion, { description: 'Add (or move) an alias; default collection: the version\'s own' })
  async addArtifactAlias(
    @Arg('versionId', () => ID) versionId: string,
    @Arg('alias', () => String) alias: string,
    @Arg('collection', () => CollectionRefInput, { nullable: true }) collection: CollectionRefInput | null,
    @Ctx() context: GraphQLContext,
  ): Promise<ArtifactVersion> {
    const principal = requirePrincipal(context);
    const version = await this.services.artifacts.addAlias(principal, versionId, alias, collection ?? null);
    const found = (await this.services.artifacts.version(principal, version.id))!;
    return toArtifactVersion(await this.services.artifacts.payload(found.version, found.collection));
  }

  @Mutation(() => ArtifactVersion)
  async addArtifactTag(
    @Arg('versionId', () => ID) versionId: string,
    @Arg('tag', () => String) tag: string,
    @Ctx() context: GraphQLContext,
  ): Promise<ArtifactVersion> {
    const principal = requirePrincipal(context);
    await this.services.artifacts.addTag(principal, versionId, tag);
    const found = (await this.services.artifacts.version(principal, versionId))!;
    return toArtifactVersion(await this.services.artifacts.payload(found.version, found.collection));
  }

  @FieldResolver(() => [ArtifactVersion], { description: 'Versions in this collection, oldest first' })
  async versions(@Root() collection: ArtifactCollection): Promise<ArtifactVersion[]> {
    const row = (await this.services.store.collectionById(collection.id))!;
    const members = await this.services.store.membersOf(collection.id);
    const versions: ArtifactVersion[] = [];
    for (const member of members) {
      const version = (await this.services.store.version(member.version_id))!;
      versions.push(toArtifactVersion(await this.services.artifacts.payload(version, row)));
    }
    return versions;
  }
}
