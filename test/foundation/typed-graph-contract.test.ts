import {
  buildSchema,
  getNamedType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  isIntrospectionType,
  isSpecifiedScalarType,
  type ConstDirectiveNode,
  type GraphQLNamedType,
  type GraphQLSchema,
} from 'graphql';
import { getMetadataStorage } from 'type-graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { isTypedInputClass } from '../../platform/graphql/typed-input.js';
import { generateSchemaFiles } from '../../server/schema-files.js';
import { SUBGRAPHS } from '../../subgraphs/index.js';

/**
 * The graph's contract, checked over the supergraph composed from the subgraph code (what the gateway serves):
 * no argument is a whole JSON value where the data has a shape, and every type, field and argument says what it is.
 */

/**
 * Arguments that are free-form JSON by nature, and why. Everything else takes typed input (a typed input may still
 * carry free-form JSON in one of its fields: call inputs, metadata, template payloads — that is not checked here).
 */
const FREE_FORM_ARGUMENTS: Record<string, string> = {
  // The OpenAI wire protocol, verbatim: what POST /inference/v1/chat/completions runs. OpenAI clients send new
  // parameters all the time and a malformed body must still reach the service, to be answered in OpenAI's shape
  // and accounted as usage. GraphQL clients use the typed createChatCompletion / chatCompletionChunks.
  'Mutation.openaiChatCompletion(body:)': 'OpenAI wire body',
  'Subscription.openaiChatCompletionChunks(body:)': 'OpenAI wire body',
  // The same for the other OpenAI wire forms of Family B: POST /inference/v1/responses (served by the chat pipeline)
  // and POST /inference/v1/embeddings.
  'Mutation.openaiResponse(body:)': 'OpenAI wire body',
  'Subscription.openaiResponseEvents(body:)': 'OpenAI wire body',
  'Mutation.openaiEmbeddings(body:)': 'OpenAI wire body',
};

/** Composition and link internals, and the root operation types (their fields are checked). */
const isInternal = (name: string) => name.startsWith('join__') || name.startsWith('link__') || ['Query', 'Mutation', 'Subscription'].includes(name);

let schema: GraphQLSchema;

beforeAll(async () => {
  const files = await generateSchemaFiles();
  schema = buildSchema(files['supergraph.graphql']!.replace(/^#.*\n/, ''), { assumeValidSDL: true });
}, 60_000);

function inaccessible(directives: readonly ConstDirectiveNode[] | undefined): boolean {
  return (directives ?? []).some((node) => node.name.value === 'inaccessible');
}

function publicTypes(): GraphQLNamedType[] {
  return Object.values(schema.getTypeMap()).filter(
    (type) => !isIntrospectionType(type) && !isSpecifiedScalarType(type) && !isInternal(type.name) && !inaccessible(type.astNode?.directives),
  );
}

describe('the composed graph', () => {
  it('takes no whole JSON value as an argument, except the few free-form by nature', () => {
    const found: string[] = [];
    for (const type of [...Object.values(schema.getTypeMap())]) {
      if (!(isObjectType(type) || isInterfaceType(type)) || isIntrospectionType(type) || type.name.startsWith('join__') || type.name.startsWith('link__')) continue;
      for (const field of Object.values(type.getFields())) {
        if (inaccessible(field.astNode?.directives)) continue;
        for (const argument of field.args) {
          const named = getNamedType(argument.type).name;
          if (named === 'JSON' || named === 'JSONObject') found.push(`${type.name}.${field.name}(${argument.name}:)`);
        }
      }
    }
    const unexplained = found.filter((coordinate) => !(coordinate in FREE_FORM_ARGUMENTS));
    expect(unexplained, 'arguments whose whole value is JSON: give them a typed input (or, if free-form by nature, explain them in FREE_FORM_ARGUMENTS)').toEqual([]);
    // The allow-lists name only what exists: a converted argument leaves them.
    expect(Object.keys(FREE_FORM_ARGUMENTS).filter((coordinate) => !found.includes(coordinate))).toEqual([]);
  });

  it('describes every type, field and argument', () => {
    const missing: string[] = [];
    for (const type of publicTypes()) {
      if (!type.description) missing.push(type.name);
      if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
        for (const field of Object.values(type.getFields())) {
          if (inaccessible(field.astNode?.directives)) continue;
          if (!field.description) missing.push(`${type.name}.${field.name}`);
          for (const argument of 'args' in field ? field.args : []) {
            if (!argument.description) missing.push(`${type.name}.${field.name}(${argument.name}:)`);
          }
        }
      }
    }
    for (const root of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]) {
      for (const field of Object.values(root?.getFields() ?? {})) {
        if (!field.description) missing.push(`${root!.name}.${field.name}`);
        for (const argument of field.args) if (!argument.description) missing.push(`${root!.name}.${field.name}(${argument.name}:)`);
      }
    }
    expect(missing).toEqual([]);
  });
});

describe('typed-input arguments', () => {
  // type-graphql converts an argument declared as an input class into class instances on every call (a cost that
  // once halved batch ingestion); typed inputs are declared with `argType()`, which the resolver gets unconverted.
  it('are declared with argType(), never with the generated input class itself', () => {
    // Only the platform's own resolvers: the suite shares one module graph (isolate: false), so another test file's
    // deliberate counter-example resolver may sit in the same metadata store.
    const platformResolvers = new Set<Function>(SUBGRAPHS.flatMap((subgraph) => subgraph.resolvers));
    const args = getMetadataStorage().params.filter((param) => param.kind === 'arg' && platformResolvers.has(param.target));
    expect(args.length).toBeGreaterThan(30); // every subgraph's resolvers are loaded (generateSchemaFiles)
    const declaredAsClass = args
      .filter((param) => param.kind === 'arg' && isTypedInputClass(param.getType()))
      .map((param) => `${param.target.name}.${param.methodName}(${param.kind === 'arg' ? param.name : ''}:)`);
    expect(declaredAsClass).toEqual([]);
  });
});
