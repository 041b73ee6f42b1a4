import type { RestRoute } from '../route.js';
import { inferenceRoutes } from './inference.js';
import { platformRoutes } from './platform.js';
import { registryRoutes } from './registry.js';
import { tracingRoutes } from './tracing.js';
import { trainingRoutes } from './training.js';

/** The whole REST surface: every documented path of every family, as declarations. */
export const ALL_ROUTES: RestRoute[] = [...platformRoutes, ...tracingRoutes, ...inferenceRoutes, ...trainingRoutes, ...registryRoutes];
