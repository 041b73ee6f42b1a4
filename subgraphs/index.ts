import type { SubgraphModule } from '../platform/subgraph.js';
import { automationsSubgraph } from './automations/index.js';
import { identitySubgraph } from './identity/index.js';
import { inferenceSubgraph } from './inference/index.js';
import { registrySubgraph } from './registry/index.js';
import { tracingSubgraph } from './tracing/index.js';
import { trainingSubgraph } from './training/index.js';

/** Every subgraph of the platform, in start-up order (identity first: others reference its entities). */
export const SUBGRAPHS: SubgraphModule<any>[] = [
  identitySubgraph,
  registrySubgraph,
  tracingSubgraph,
  inferenceSubgraph,
  trainingSubgraph,
  automationsSubgraph,
];

export function subgraphByName(name: string): SubgraphModule<any> {
  const subgraph = SUBGRAPHS.find((candidate) => candidate.name === name);
  if (!subgraph) throw new Error(`unknown subgraph "${name}"; known: ${SUBGRAPHS.map((s) => s.name).join(', ')}`);
  return subgraph;
}
