import { Kind, type ArgumentNode, type DocumentNode, type FieldNode, type OperationDefinitionNode, type ValueNode } from 'graphql';

/**
 * Read routes address a project as the supergraph does: `project(entity: …, name: …) { <fields of one family> }`,
 * where `project` is identity's root field and the fields belong to a family subgraph that extends the Project
 * entity. A family subgraph has no `project` root field; it resolves Project as an entity reference
 * (`_entities`). So to run such an operation on the family subgraph directly, the `project` root field is
 * rewritten into `project: _entities(representations: $…) { ... on Project { <same fields> } }`, and the
 * representation is built from the field's `entity`/`name` arguments. Whether the project exists is then not
 * checked by that operation (identity knows): the caller must have checked it (route option `readsProject`).
 */
export interface ProjectReferenceOperation {
  document: DocumentNode;
  /** The operation's variables plus the representation built from them. */
  variables(variables: Record<string, unknown>): Record<string, unknown>;
  /** The result in the shape of the original operation (`_entities` answers a list of one). */
  data(data: Record<string, any>): Record<string, any>;
}

const REPRESENTATIONS = '__projectRepresentations';

/** The rewritten operation, or null when the operation's only root field is not `project(entity, name)`. */
export function asProjectReference(document: DocumentNode): ProjectReferenceOperation | null {
  const operation = document.definitions.find((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION);
  if (!operation || operation.operation !== 'query' || document.definitions.length !== 1) return null;
  const [root, ...others] = operation.selectionSet.selections;
  if (!root || others.length > 0 || root.kind !== Kind.FIELD || root.name.value !== 'project' || !root.selectionSet) return null;
  const entity = argument(root, 'entity');
  const name = argument(root, 'name');
  if (!entity || !name) return null;
  const rewritten: FieldNode = {
    kind: Kind.FIELD,
    alias: { kind: Kind.NAME, value: root.alias?.value ?? 'project' },
    name: { kind: Kind.NAME, value: '_entities' },
    arguments: [
      {
        kind: Kind.ARGUMENT,
        name: { kind: Kind.NAME, value: 'representations' },
        value: { kind: Kind.VARIABLE, name: { kind: Kind.NAME, value: REPRESENTATIONS } },
      },
    ],
    selectionSet: {
      kind: Kind.SELECTION_SET,
      selections: [{ kind: Kind.INLINE_FRAGMENT, typeCondition: { kind: Kind.NAMED_TYPE, name: { kind: Kind.NAME, value: 'Project' } }, selectionSet: root.selectionSet }],
    },
  };
  const representationsType = {
    kind: Kind.NON_NULL_TYPE,
    type: { kind: Kind.LIST_TYPE, type: { kind: Kind.NON_NULL_TYPE, type: { kind: Kind.NAMED_TYPE, name: { kind: Kind.NAME, value: '_Any' } } } },
  } as const;
  const definition: OperationDefinitionNode = {
    ...operation,
    variableDefinitions: [
      ...(operation.variableDefinitions ?? []),
      { kind: Kind.VARIABLE_DEFINITION, variable: { kind: Kind.VARIABLE, name: { kind: Kind.NAME, value: REPRESENTATIONS } }, type: representationsType },
    ],
    selectionSet: { kind: Kind.SELECTION_SET, selections: [rewritten] },
  };
  const alias = rewritten.alias!.value;
  return {
    document: { kind: Kind.DOCUMENT, definitions: [definition] },
    variables: (variables) => ({
      ...variables,
      [REPRESENTATIONS]: [{ __typename: 'Project', entity: valueOf(entity, variables), name: valueOf(name, variables) }],
    }),
    data: (data) => ({ ...data, [alias]: (data[alias] as unknown[] | null | undefined)?.[0] ?? null }),
  };
}

function argument(field: FieldNode, name: string): ArgumentNode | undefined {
  return field.arguments?.find((arg) => arg.name.value === name);
}

function valueOf(arg: ArgumentNode, variables: Record<string, unknown>): unknown {
  const value: ValueNode = arg.value;
  if (value.kind === Kind.VARIABLE) return variables[value.name.value];
  if (value.kind === Kind.STRING) return value.value;
  return undefined;
}
