import { Query, Resolver } from 'type-graphql';
import { JSONObjectScalar } from '../../../platform/graphql/scalars.js';
import type { TrainingServices } from '../services.js';
import { runSystemCheck, type SystemCheckReport } from './system-check.js';

/** Health endpoints need no API key (load balancers and the ART client call them anonymously). */
@Resolver()
export class TrainingHealthResolver {
  constructor(private readonly services: TrainingServices) {}

  @Query(() => JSONObjectScalar, { description: 'Liveness of the training API: {status: "ok"}' })
  trainingHealth(): Record<string, unknown> {
    return { status: 'ok' };
  }

  @Query(() => JSONObjectScalar, { description: 'Per-check results (api, database, job store): success, duration (s), errors' })
  trainingSystemCheck(): Promise<SystemCheckReport> {
    return runSystemCheck(this.services.store);
  }
}
