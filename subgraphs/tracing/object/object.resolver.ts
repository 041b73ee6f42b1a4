import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import { BadRequestError, TrellisError } from '../../../platform/errors.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { JSONObjectScalar } from '../../../platform/graphql/scalars.js';
import { validateOrThrow } from '../../../platform/validation.js';
import { ProjectId } from '../schema-helpers.js';
import type { TracingServices } from '../services.js';
import { writerOf } from '../writer.js';
import { MAX_FILE_BYTES } from './object.service.js';
import { ObjectCreateResult, TableCreateResult, TraceObject } from './object.type.js';

@Resolver(() => TraceObject)
export class ObjectResolver {
  constructor(private readonly services: TracingServices) {}

  @Mutation(() => ObjectCreateResult, { description: 'POST /obj/create: body {obj:{project_id, object_id, val}}' })
  async createTraceObject(@Arg('body', () => JSONObjectScalar) body: Record<string, unknown>, @Ctx() context: GraphQLContext): Promise<ObjectCreateResult> {
    const { digest, object_id } = await this.services.objects.createObject(writerOf(context), body);
    return { digest, objectId: object_id };
  }

  @Mutation(() => TableCreateResult, { description: 'POST /table/create: body {table:{project_id, rows}}' })
  async createTraceTable(@Arg('body', () => JSONObjectScalar) body: Record<string, unknown>, @Ctx() context: GraphQLContext): Promise<TableCreateResult> {
    const { digest, row_digests } = await this.services.objects.createTable(writerOf(context), body);
    return { digest, rowDigests: row_digests };
  }

  @Mutation(() => String, { description: 'POST /file/create (multipart): stores the bytes, returns their digest' })
  async createTraceFile(
    @Arg('projectId', () => String) projectId: string,
    @Arg('contentBase64', () => String, { description: 'The file bytes, base64' }) contentBase64: string,
    @Ctx() context: GraphQLContext,
  ): Promise<string> {
    validateOrThrow(ProjectId, projectId, 'project_id');
    const content = Buffer.from(contentBase64, 'base64');
    if (content.length > MAX_FILE_BYTES) throw new TrellisError(413, 'PAYLOAD_TOO_LARGE', `Files are limited to ${MAX_FILE_BYTES} bytes`);
    if (content.length === 0 && contentBase64.length > 0) throw new BadRequestError('contentBase64 is not valid base64');
    return this.services.objects.createFile(writerOf(context), projectId, content);
  }
}
