import type { GraphQLDataSource, GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { execute, parse, validate, type DocumentNode, type GraphQLSchema } from 'graphql';
import type { GatewayGraphQLResponse } from '@apollo/server-gateway-interface';

/**
 * Runs a subgraph's part of a query plan in this process. Like Apollo's LocalGraphQLDataSource, but the parsed
 * and validated subgraph documents are cached: the gateway sends the same few fetch documents over and over,
 * and re-parsing them dominated the in-process gateway's overhead.
 */
export class InProcessDataSource<TContext extends Record<string, any>> implements GraphQLDataSource<TContext> {
  private readonly documents = new Map<string, DocumentNode>();

  constructor(
    readonly schema: GraphQLSchema,
    private readonly maxCachedDocuments = 1_000,
  ) {}

  async process({ request, context }: GraphQLDataSourceProcessOptions<TContext>): Promise<GatewayGraphQLResponse> {
    const source = request.query ?? '';
    let document = this.documents.get(source);
    if (!document) {
      try {
        document = parse(source);
      } catch (error) {
        return { errors: [{ message: (error as Error).message }] } as GatewayGraphQLResponse;
      }
      const errors = validate(this.schema, document);
      if (errors.length > 0) return { errors } as unknown as GatewayGraphQLResponse;
      if (this.documents.size >= this.maxCachedDocuments) this.documents.clear();
      this.documents.set(source, document);
    }
    const result = await execute({
      schema: this.schema,
      document,
      variableValues: request.variables,
      operationName: request.operationName,
      contextValue: context,
    });
    return result as GatewayGraphQLResponse;
  }
}
