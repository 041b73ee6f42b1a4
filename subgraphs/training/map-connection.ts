import type { Connection } from '../../platform/graphql/connection.js';

/** The same page with every node converted (rows to GraphQL objects). */
export function mapConnection<A, B>(connection: Connection<A>, convert: (node: A) => B): Connection<B> {
  const edges = connection.edges.map((edge) => ({ cursor: edge.cursor, node: convert(edge.node) }));
  return { edges, nodes: edges.map((edge) => edge.node), pageInfo: connection.pageInfo };
}
