import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import { TrellisError } from '../../../platform/errors.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { validateOrThrow } from '../../../platform/validation.js';
import type { TracingServices } from '../services.js';
import { writerOf } from '../writer.js';
import { AT_OBJECT, AT_TABLE, TraceFileCreateInput, TraceObjectCreateInput, TraceTableCreateInput } from './object.inputs.js';
import { FileCreateSchema } from './object.schemas.js';
import { MAX_FILE_BYTES } from './object.service.js';
import { ObjectCreateResult, TableCreateResult, TraceObject } from './object.type.js';

@Resolver(() => TraceObject)
export class ObjectResolver {
  constructor(private readonly services: TracingServices) {}

  @Mutation(() => ObjectCreateResult, {
    description:
      'Stores a version of a named object (an op, a dataset, a model, …), addressed by the digest of its value: storing the same value ' +
      'again answers the same digest and adds no version. Also at POST /traces/obj/create.',
  })
  async createTraceObject(
    @Arg('input', () => TraceObjectCreateInput.argType(), { description: 'The object and its value' }) input: unknown,
    @Ctx() context: GraphQLContext,
  ): Promise<ObjectCreateResult> {
    const { digest, object_id } = await TraceObjectCreateInput.handle(input, AT_OBJECT, (obj) => this.services.objects.createObject(writerOf(context), { obj }));
    return { digest, objectId: object_id };
  }

  @Mutation(() => TableCreateResult, {
    description: 'Stores a table (rows in order, each addressed by its digest); the table is addressed by the digest of its row digests. Also at POST /traces/table/create.',
  })
  async createTraceTable(
    @Arg('input', () => TraceTableCreateInput.argType(), { description: 'The table and its rows' }) input: unknown,
    @Ctx() context: GraphQLContext,
  ): Promise<TableCreateResult> {
    const { digest, row_digests } = await TraceTableCreateInput.handle(input, AT_TABLE, (table) => this.services.objects.createTable(writerOf(context), { table }));
    return { digest, rowDigests: row_digests };
  }

  @Mutation(() => String, {
    description: `Stores a file (at most ${MAX_FILE_BYTES / 1024 / 1024} MiB) and answers its digest, by which objects refer to it. Also at POST /traces/file/create (multipart).`,
  })
  async createTraceFile(
    @Arg('input', () => TraceFileCreateInput.argType(), { description: 'The project and the bytes' }) input: unknown,
    @Ctx() context: GraphQLContext,
  ): Promise<string> {
    return TraceFileCreateInput.handle(input, { arg: 'input', wire: ['body'] }, async (wire) => {
      const request = validateOrThrow(FileCreateSchema, wire, 'body');
      const content = Buffer.from(request.content_base64, 'base64');
      if (content.length > MAX_FILE_BYTES) throw new TrellisError(413, 'PAYLOAD_TOO_LARGE', `Files are limited to ${MAX_FILE_BYTES} bytes`);
      return this.services.objects.createFile(writerOf(context), request.project_id, content);
    });
  }
}
