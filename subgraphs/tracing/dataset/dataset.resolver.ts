import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import type { TracingServices } from '../services.js';
import { writerOf } from '../writer.js';
import { AT_INPUT, DatasetFromCallsInput, DatasetRowEditInput } from './dataset.inputs.js';
import type { DatasetService } from './dataset.service.js';
import { TraceDatasetVersion } from './dataset.type.js';

@Resolver()
export class DatasetResolver {
  private readonly datasets: DatasetService;

  constructor(services: TracingServices) {
    this.datasets = services.datasets;
  }

  @Mutation(() => TraceDatasetVersion, {
    description:
      "Turns calls (by ids, or every call the traces list's search, filter and query select) into a new version of a Weave Dataset — or appends them to its latest version — with a column per call field (inputs, output, a path into them, attributes, a scorer's latest score). Stored as the Weave SDKs publish datasets. Team members of the project",
  })
  async createDatasetFromCalls(
    @Arg('input', () => DatasetFromCallsInput.argType(), { description: 'The calls, the dataset and the column mapping' }) input: unknown,
    @Ctx() context: GraphQLContext,
  ): Promise<TraceDatasetVersion> {
    return DatasetFromCallsInput.handle(input, AT_INPUT, (wire) => this.datasets.fromCalls(writerOf(context), wire));
  }

  @Mutation(() => TraceDatasetVersion, {
    description: "Sets columns of one row of a Dataset version (e.g. a corrected `expected` output) and saves the result as the Dataset's next version. Team members of the project",
  })
  async editDatasetRow(
    @Arg('input', () => DatasetRowEditInput.argType(), { description: 'The version, the row and the new values' }) input: unknown,
    @Ctx() context: GraphQLContext,
  ): Promise<TraceDatasetVersion> {
    return DatasetRowEditInput.handle(input, AT_INPUT, (wire) => this.datasets.editRow(writerOf(context), wire));
  }
}
