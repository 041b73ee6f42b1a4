import { Arg, FieldResolver, Resolver, Root } from 'type-graphql';
import type { RegistryServices } from '../services.js';
import { ArtifactFile, ArtifactVersion } from './artifact.type.js';

/**
 * File contents of artifact versions. Every way to reach an ArtifactVersion checks that the caller may read it, so
 * its files' contents need no second check.
 */
@Resolver(() => ArtifactFile)
export class ArtifactFileResolver {
  constructor(private readonly services: RegistryServices) {}

  @FieldResolver(() => String, { description: 'The file\'s bytes, base64 (artifact files are small: datasets, adapters)' })
  async contentBase64(@Root() file: ArtifactFile): Promise<string> {
    return ((await this.services.artifacts.fileContent(file.versionId, file.path)) ?? Buffer.alloc(0)).toString('base64');
  }
}

@Resolver(() => ArtifactVersion)
export class ArtifactVersionFileResolver {
  @FieldResolver(() => ArtifactFile, { nullable: true, description: 'One file of the version by path (null when it has none)' })
  file(@Root() version: ArtifactVersion, @Arg('path', () => String, { description: 'Path of the file in the version' }) path: string): ArtifactFile | null {
    return version.files.find((file) => file.path === path) ?? null;
  }
}
