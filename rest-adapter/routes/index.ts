import type { RestRoute, UnknownPathRule } from '../route.js';
import { inferenceRoutes, inferenceUnknownPaths } from './inference.js';
import { platformRoutes } from './platform.js';
import { registryRoutes } from './registry.js';
import { tracingRoutes } from './tracing.js';
import { trainingRoutes } from './training.js';

/** The whole REST surface: every documented path of every family, as declarations. */
export const ALL_ROUTES: RestRoute[] = [...platformRoutes, ...tracingRoutes, ...inferenceRoutes, ...trainingRoutes, ...registryRoutes];

/** Families that answer unknown paths under their mount in their client's terms. */
export const UNKNOWN_PATH_RULES: UnknownPathRule[] = [inferenceUnknownPaths];
