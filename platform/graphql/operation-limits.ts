import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import {
  GraphQLError,
  Kind,
  type ASTVisitor,
  type FragmentDefinitionNode,
  type ParseOptions,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';

/**
 * What one GraphQL operation may ask for, on every transport that executes operations (`/graphql` through the
 * gateway, the public `/graphql/ws`). Everything is checked on the document before anything runs:
 * a document over a limit is a 400 (GRAPHQL_PARSE_FAILED for its size, GRAPHQL_VALIDATION_FAILED otherwise).
 */
export interface OperationLimits {
  /** Deepest field nesting (introspection excluded: the standard introspection query is 21 levels deep). */
  maxDepth: number;
  /** Highest graphql-armor cost (introspection excluded: it is bounded by `maxIntrospectionFields` instead). */
  maxCost: number;
  /** Most aliased fields per operation, fragments expanded where they are spread (introspection included). */
  maxAliases: number;
  /** Most lexical tokens in a document: bounds the parse itself, before any rule runs. */
  maxTokens: number;
}

/**
 * Introspection answers are large (the whole schema is ≈ 1 MB of JSON), so an operation may ask for it only once:
 * one `__schema` and a few `__type` lookups, counted after fragments are expanded. Aliasing `__schema` 300 times
 * would otherwise answer hundreds of MB from a request of a few KB, and the depth and cost rules cannot count it
 * without refusing the standard introspection query every schema tool sends.
 */
export const MAX_SCHEMA_FIELDS = 1;
export const MAX_TYPE_FIELDS = 10;

/** The parse options that bound a document's size (graphql-js stops lexing past `maxTokens`). */
export function limitedParseOptions(limits: OperationLimits): ParseOptions {
  return { maxTokens: limits.maxTokens };
}

/** Validation rules enforcing `limits` (add them to graphql-js's specified rules). */
export function operationLimitRules(limits: OperationLimits): ValidationRule[] {
  // Rejections are reported as validation errors (HTTP 400), not thrown (which Apollo turns into a 500).
  const report = { propagateOnRejection: false, exposeLimits: false, onReject: [(context: ValidationContext | null, error: GraphQLError) => context?.reportError(error)] };
  return [
    maxDepthRule({ ...report, n: limits.maxDepth, ignoreIntrospection: true, errorMessage: `Query is nested too deeply: the limit is ${limits.maxDepth} levels` }),
    costLimitRule({ ...report, maxCost: limits.maxCost, ignoreIntrospection: true, errorMessage: `Query is too expensive: the cost limit is ${limits.maxCost}` }),
    maxAliasesRule({ ...report, n: limits.maxAliases, errorMessage: `Query has too many aliases: the limit is ${limits.maxAliases}` }),
    introspectionBudgetRule,
  ];
}

/** At most MAX_SCHEMA_FIELDS `__schema` and MAX_TYPE_FIELDS `__type` fields in each operation. */
export const introspectionBudgetRule: ValidationRule = (context) => {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of context.getDocument().definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const counter = new IntrospectionCounter(fragments);
  const visitor: ASTVisitor = {
    OperationDefinition(operation) {
      const counts = counter.count(operation.selectionSet);
      if (counts.schema > MAX_SCHEMA_FIELDS || counts.type > MAX_TYPE_FIELDS) {
        context.reportError(
          new GraphQLError(
            `Query asks for introspection too often: at most ${MAX_SCHEMA_FIELDS} __schema and ${MAX_TYPE_FIELDS} __type fields per operation`,
            { nodes: [operation] },
          ),
        );
      }
      return false;
    },
  };
  return visitor;
};

interface IntrospectionCounts {
  schema: number;
  type: number;
}

/**
 * Counts introspection fields with fragments expanded where they are spread. Each fragment is counted once and its
 * count reused, so a chain of fragments spreading the next one twice costs linear time, not exponential.
 */
class IntrospectionCounter {
  private readonly byFragment = new Map<string, IntrospectionCounts>();
  private readonly counting = new Set<string>();

  constructor(private readonly fragments: Map<string, FragmentDefinitionNode>) {}

  count(selections: SelectionSetNode): IntrospectionCounts {
    const total: IntrospectionCounts = { schema: 0, type: 0 };
    const add = (counts: IntrospectionCounts) => {
      total.schema += counts.schema;
      total.type += counts.type;
    };
    for (const selection of selections.selections) {
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value === '__schema') total.schema += 1;
        if (selection.name.value === '__type') total.type += 1;
        if (selection.selectionSet) add(this.count(selection.selectionSet));
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        add(this.count(selection.selectionSet));
      } else {
        add(this.fragment(selection.name.value));
      }
    }
    return total;
  }

  private fragment(name: string): IntrospectionCounts {
    const known = this.byFragment.get(name);
    if (known) return known;
    const fragment = this.fragments.get(name);
    // Unknown fragments and cycles are the specified rules' errors (KnownFragmentNames, NoFragmentCycles).
    if (!fragment || this.counting.has(name)) return { schema: 0, type: 0 };
    this.counting.add(name);
    const counts = this.count(fragment.selectionSet);
    this.counting.delete(name);
    this.byFragment.set(name, counts);
    return counts;
  }
}
