import { composeServices } from '@apollo/composition';
import { parse } from 'graphql';
import type { SubgraphModule } from '../platform/subgraph.js';

export class CompositionError extends Error {
  override name = 'CompositionError';
}

export interface PrintedSubgraph {
  name: string;
  sdl: string;
}

export async function printSubgraphs(subgraphs: SubgraphModule<any>[]): Promise<PrintedSubgraph[]> {
  return Promise.all(subgraphs.map(async (subgraph) => ({ name: subgraph.name, sdl: await subgraph.printSdl() })));
}

/**
 * Composes the subgraph SDLs into the supergraph the gateway plans queries against. The URL is where the
 * distributed topology reaches a subgraph; in-process it is only a label.
 */
export function composeSupergraph(printed: PrintedSubgraph[], urls: Record<string, string> = {}): string {
  const result = composeServices(
    printed.map(({ name, sdl }) => ({ name, typeDefs: parse(sdl), url: urls[name] ?? `in-process://${name}` })),
  );
  if (result.errors?.length || !result.supergraphSdl) {
    throw new CompositionError(`supergraph composition failed:\n${(result.errors ?? []).map((e) => `- ${e.message}`).join('\n')}`);
  }
  return result.supergraphSdl;
}
