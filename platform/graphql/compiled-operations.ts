import type { DocumentNode, ExecutionResult, GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { GraphQLContext } from './context.js';
import { LeafFieldOperation } from './leaf-field-operation.js';

/**
 * Runs the REST routes' own operations on a subgraph's schema in this process, compiled once per operation with
 * graphql-jit. The documents are fixed by the route table (never client-supplied), so compiling pays off from the
 * second request on: graphql-js re-derives everything (variable coercion, field collection, argument values) on
 * every execution — and for a subscription, once per event — which on the inference hot path cost more than the
 * rest of a streamed chunk's handling. Results, errors (with `originalError`) and subscription streams have the
 * same shapes as graphql-js's `execute` and `subscribe`. An operation of one scalar-valued root field (the inference
 * hot path's) needs no engine at all and runs as a LeafFieldOperation.
 */
export class CompiledOperations {
  private readonly compiled = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, CompiledQuery | LeafFieldOperation | ExecutionResult>>();

  execute(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown>, context: GraphQLContext): Promise<ExecutionResult> {
    const query = this.compile(schema, document);
    if (query instanceof LeafFieldOperation) return query.execute(context, variables);
    if (!isCompiledQuery(query)) return Promise.resolve(query);
    return Promise.resolve(query.query(undefined, context, variables));
  }

  async subscribe(
    schema: GraphQLSchema,
    document: DocumentNode,
    variables: Record<string, unknown>,
    context: GraphQLContext,
  ): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
    const query = this.compile(schema, document);
    if (query instanceof LeafFieldOperation) return query.subscribe(context, variables);
    if (!isCompiledQuery(query)) return query;
    return query.subscribe!(undefined, context, variables);
  }

  private compile(schema: GraphQLSchema, document: DocumentNode): CompiledQuery | LeafFieldOperation | ExecutionResult {
    let bySchema = this.compiled.get(schema);
    if (!bySchema) {
      bySchema = new WeakMap();
      this.compiled.set(schema, bySchema);
    }
    let query = bySchema.get(document);
    if (!query) {
      query = LeafFieldOperation.of(schema, document) ?? compileQuery(schema, document);
      bySchema.set(document, query);
    }
    return query;
  }
}
