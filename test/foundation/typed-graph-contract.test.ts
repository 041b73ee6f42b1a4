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
import { beforeAll, describe, expect, it } from 'vitest';
import { generateSchemaFiles } from '../../server/schema-files.js';

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
};

/**
 * TRAINING: being converted on branch g-training; remove when merged. The training subgraph's arguments that are
 * still whole JSON values today.
 */
const TRAINING_JSON_ARGUMENTS_BEING_CONVERTED = new Set<string>([
  'Mutation.createTrainingChatCompletion(request:)',
  'Mutation.createRlTrainingJob(input:)',
  'Mutation.createSftTrainingJob(input:)',
  'Mutation.createTrainingModel(input:)',
  'Mutation.deleteTrainingCheckpoints(input:)',
  'Mutation.logTrajectories(input:)',
  'Mutation.reportTrainingStep(metrics:)',
  'Mutation.completeTrainingWork(files:)',
  'Subscription.trainingChatCompletionChunks(request:)',
]);

/**
 * TRAINING: being converted on branch g-training; remove when merged. Types and fields only the training subgraph
 * defines are not yet checked for descriptions.
 */
const TRAINING_GRAPH_BEING_CONVERTED = 'TRAINING';

/** Composition and link internals, and the root operation types (their fields are checked). */
const isInternal = (name: string) => name.startsWith('join__') || name.startsWith('link__') || ['Query', 'Mutation', 'Subscription'].includes(name);

let schema: GraphQLSchema;

beforeAll(async () => {
  const files = await generateSchemaFiles();
  schema = buildSchema(files['supergraph.graphql']!.replace(/^#.*\n/, ''), { assumeValidSDL: true });
}, 60_000);

function graphsOf(directives: readonly ConstDirectiveNode[] | undefined, directive: string): string[] {
  return (directives ?? [])
    .filter((node) => node.name.value === directive)
    .map((node) => node.arguments?.find((argument) => argument.name.value === 'graph')?.value)
    .flatMap((value) => (value && value.kind === 'EnumValue' ? [value.value] : []));
}

function inaccessible(directives: readonly ConstDirectiveNode[] | undefined): boolean {
  return (directives ?? []).some((node) => node.name.value === 'inaccessible');
}

/** Whether only the training subgraph defines the type (or, for a field, the field). */
function trainingOnly(type: GraphQLNamedType, fieldDirectives?: readonly ConstDirectiveNode[]): boolean {
  const fieldGraphs = graphsOf(fieldDirectives, 'join__field');
  const graphs = fieldGraphs.length > 0 ? fieldGraphs : graphsOf(type.astNode?.directives, 'join__type');
  return graphs.length > 0 && graphs.every((graph) => graph === TRAINING_GRAPH_BEING_CONVERTED);
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
    const unexplained = found.filter((coordinate) => !(coordinate in FREE_FORM_ARGUMENTS) && !TRAINING_JSON_ARGUMENTS_BEING_CONVERTED.has(coordinate));
    expect(unexplained, 'arguments whose whole value is JSON: give them a typed input (or, if free-form by nature, explain them in FREE_FORM_ARGUMENTS)').toEqual([]);
    // The allow-lists name only what exists: a converted argument leaves them.
    expect(Object.keys(FREE_FORM_ARGUMENTS).filter((coordinate) => !found.includes(coordinate))).toEqual([]);
    expect([...TRAINING_JSON_ARGUMENTS_BEING_CONVERTED].filter((coordinate) => !found.includes(coordinate))).toEqual([]);
  });

  it('describes every type, field and argument', () => {
    const missing: string[] = [];
    for (const type of publicTypes()) {
      if (!type.description && !trainingOnly(type)) missing.push(type.name);
      if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
        for (const field of Object.values(type.getFields())) {
          if (inaccessible(field.astNode?.directives) || trainingOnly(type, field.astNode?.directives)) continue;
          if (!field.description) missing.push(`${type.name}.${field.name}`);
          for (const argument of 'args' in field ? field.args : []) {
            if (!argument.description) missing.push(`${type.name}.${field.name}(${argument.name}:)`);
          }
        }
      }
    }
    for (const root of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]) {
      for (const field of Object.values(root?.getFields() ?? {})) {
        if (trainingOnly(root!, field.astNode?.directives)) continue;
        if (!field.description) missing.push(`${root!.name}.${field.name}`);
        for (const argument of field.args) if (!argument.description) missing.push(`${root!.name}.${field.name}(${argument.name}:)`);
      }
    }
    expect(missing).toEqual([]);
  });
});
