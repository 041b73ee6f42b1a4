import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, Kind, visit, type DocumentNode } from 'graphql';
import type { GraphQLContext } from '../../platform/graphql/context.js';
import { findUnstorableInput, unstorableCharacter, unstorableMessage, type UnstorableInput } from '../../platform/storable-input.js';

/**
 * GraphQL's share of the edge check of platform/storable-input.ts: the request's variables and the string
 * literals of its document must hold nothing PostgreSQL cannot store, and no value may nest deeper than
 * `maxDepth`. An offence is a BAD_USER_INPUT error (HTTP 400) naming where it is, before anything executes.
 * Runs for `/graphql` (GET and POST) and for REST routes that go through the gateway; REST routes executed on
 * a subgraph directly were checked by the HTTP edge (platform/http/json-body-parser.ts).
 */
export function rejectUnstorableInput(maxDepth: number): ApolloServerPlugin<GraphQLContext> {
  // Documents are cached by Apollo, so the same parsed document comes back: its literals are checked once.
  const checkedDocuments = new WeakSet<DocumentNode>();
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request, document }) {
          const inVariables = findUnstorableInput(request.variables ?? {}, maxDepth);
          if (inVariables) throw inputError(inVariables, 'variables', maxDepth);
          if (checkedDocuments.has(document)) return;
          const inDocument = findInDocument(document, maxDepth);
          if (inDocument) throw inputError(inDocument, 'query', maxDepth);
          checkedDocuments.add(document);
        },
      };
    },
  };
}

function inputError(found: UnstorableInput, part: 'variables' | 'query', maxDepth: number): GraphQLError {
  const where = part === 'variables' ? `variable $${found.path.join('.')}` : 'a string literal of the query';
  return new GraphQLError(`${unstorableMessage(found.reason, maxDepth)} (in ${where})`, {
    extensions: {
      code: 'BAD_USER_INPUT',
      status: 400,
      http: { status: 400 },
      issues: [{ loc: [part, ...found.path], msg: unstorableMessage(found.reason, maxDepth), type: found.reason === 'too_deep' ? 'too_deep' : 'string_unstorable_character' }],
      ...(part === 'variables' ? { param: found.path.join('.') } : {}),
    },
  });
}

/** The first unstorable string literal or over-deep list/object literal; graphql-js's `visit` is iterative. */
function findInDocument(document: DocumentNode, maxDepth: number): UnstorableInput | undefined {
  let found: UnstorableInput | undefined;
  let depth = 0;
  const enterValue = () => {
    depth += 1;
    if (depth > maxDepth && !found) found = { path: [], reason: 'too_deep' };
  };
  const leaveValue = () => {
    depth -= 1;
  };
  visit(document, {
    [Kind.LIST]: { enter: enterValue, leave: leaveValue },
    [Kind.OBJECT]: { enter: enterValue, leave: leaveValue },
    [Kind.STRING](node) {
      const reason = found ? undefined : unstorableCharacter(node.value);
      if (reason) found = { path: [], reason };
    },
  });
  return found;
}
