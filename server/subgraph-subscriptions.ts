import { buildSubgraphSchema } from '@apollo/subgraph';
import {
  Kind,
  parse,
  subscribe,
  type ConstDirectiveNode,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
  type ObjectTypeDefinitionNode,
  type ObjectTypeExtensionNode,
} from 'graphql';
import type { PrintedSubgraph } from '../gateway/supergraph.js';
import { TrellisError } from '../platform/errors.js';
import type { CompiledOperations } from '../platform/graphql/compiled-operations.js';
import type { GraphQLContext } from '../platform/graphql/context.js';
import type { RemoteSubscriptions } from '../platform/graphql/subscriptions-over-websocket.js';
import type { StartedSubgraph } from '../platform/subgraph.js';

export type SubscriptionStream = AsyncIterableIterator<ExecutionResult> | ExecutionResult;

/**
 * How a document is run on a subgraph in this process: `compiled` (graphql-jit, compiled once per document) for
 * the REST routes' fixed documents; `interpreted` (graphql-js) for client documents, which are new objects on
 * every operation, so compiling them would cost more than it saves.
 */
export type LocalExecution = 'compiled' | 'interpreted';

/**
 * The one place a subscription of a named subgraph is run, for the streaming REST routes and the public
 * `/graphql/ws`: on the subgraph's schema when it runs in this process (with its own `subscriptionContext`), else
 * on its service over the signed internal graphql-ws endpoint (the service applies the hook there).
 */
export class SubgraphSubscriptions {
  private readonly owners: Map<string, string>;
  private readonly remoteSchemas = new Map<string, GraphQLSchema>();

  constructor(
    private readonly options: {
      started: Map<string, StartedSubgraph<any>>;
      /** Subgraphs running as services: name → URL of their /graphql. */
      urls: Record<string, string>;
      remote?: RemoteSubscriptions;
      operations: CompiledOperations;
      supergraphSdl: string;
      /** Every subgraph's SDL (remote ones' schemas are built from it, for validation). */
      printed: PrintedSubgraph[];
    },
  ) {
    this.owners = subscriptionOwners(options.supergraphSdl);
    // A subgraph in this process knows its fields best (and decides even if composition named it differently).
    for (const [name, subgraph] of options.started) {
      for (const field of Object.keys(subgraph.schema.getSubscriptionType()?.getFields() ?? {})) this.owners.set(field, name);
    }
  }

  /** The subgraph that serves the Subscription field `field`. */
  ownerOf(field: string): string | undefined {
    return this.owners.get(field);
  }

  /** The schema a subscription of `name` executes on: its own (remote: built from its SDL, for validation only). */
  schemaOf(name: string): GraphQLSchema | undefined {
    const local = this.options.started.get(name)?.schema;
    if (local) return local;
    if (!this.options.urls[name]) return undefined;
    let schema = this.remoteSchemas.get(name);
    if (!schema) {
      const printed = this.options.printed.find((candidate) => candidate.name === name);
      if (!printed) return undefined;
      schema = buildSubgraphSchema({ typeDefs: parse(printed.sdl) });
      this.remoteSchemas.set(name, schema);
    }
    return schema;
  }

  /** Shaped like the REST adapter's SubscriptionExecutor (rest-adapter/sse.ts), which it serves. */
  readonly subscribe = async (
    name: string,
    document: DocumentNode,
    variables: Record<string, unknown>,
    context: GraphQLContext,
    execution: LocalExecution = 'compiled',
  ): Promise<SubscriptionStream> => {
    const local = this.options.started.get(name);
    if (local) {
      const contextValue = local.subscriptionContext(context);
      if (execution === 'compiled') return this.options.operations.subscribe(local.schema, document, variables, contextValue);
      return subscribe({ schema: local.schema, document, variableValues: variables, contextValue });
    }
    const url = this.options.urls[name];
    if (url && this.options.remote) return this.options.remote.subscribe(url, document, variables, context);
    throw new TrellisError(503, 'UNAVAILABLE', `The ${name} subgraph is not reachable for streaming`);
  };
}

/**
 * Subscription field → subgraph name from the composed supergraph: the field's `@join__field(graph:)`, else the
 * type's only `@join__type(graph:)`; graph enum values are mapped to names through `join__Graph`'s `@join__graph`.
 */
export function subscriptionOwners(supergraphSdl: string): Map<string, string> {
  const document = parse(supergraphSdl);
  const graphNames = new Map<string, string>();
  const subscriptionTypes: (ObjectTypeDefinitionNode | ObjectTypeExtensionNode)[] = [];
  for (const definition of document.definitions) {
    if (definition.kind === Kind.ENUM_TYPE_DEFINITION && definition.name.value === 'join__Graph') {
      for (const value of definition.values ?? []) {
        const name = stringArgument(value.directives?.find((directive) => directive.name.value === 'join__graph'), 'name');
        if (name) graphNames.set(value.name.value, name);
      }
    }
    if ((definition.kind === Kind.OBJECT_TYPE_DEFINITION || definition.kind === Kind.OBJECT_TYPE_EXTENSION) && definition.name.value === 'Subscription') {
      subscriptionTypes.push(definition);
    }
  }
  const owners = new Map<string, string>();
  for (const type of subscriptionTypes) {
    const typeGraphs = (type.directives ?? []).filter((directive) => directive.name.value === 'join__type').map((directive) => enumArgument(directive, 'graph'));
    for (const field of type.fields ?? []) {
      const fieldGraphs = (field.directives ?? []).filter((directive) => directive.name.value === 'join__field').map((directive) => enumArgument(directive, 'graph'));
      const graph = fieldGraphs.find((candidate) => candidate !== undefined) ?? (typeGraphs.length === 1 ? typeGraphs[0] : undefined);
      const name = graph === undefined ? undefined : graphNames.get(graph);
      if (name) owners.set(field.name.value, name);
    }
  }
  return owners;
}

function stringArgument(directive: ConstDirectiveNode | undefined, name: string): string | undefined {
  const argument = directive?.arguments?.find((candidate) => candidate.name.value === name);
  return argument?.value.kind === Kind.STRING ? argument.value.value : undefined;
}

function enumArgument(directive: ConstDirectiveNode | undefined, name: string): string | undefined {
  const argument = directive?.arguments?.find((candidate) => candidate.name.value === name);
  return argument?.value.kind === Kind.ENUM ? argument.value.value : undefined;
}
