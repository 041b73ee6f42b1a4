import { Type } from '@sinclair/typebox';
import { defineRoute } from '../route.js';

/** Liveness endpoints that the families' clients call under their own base URLs (training's are in routes/training.ts). */
const gatewayAlive = 'query GatewayAlive { __typename }';

export const platformRoutes = [
  defineRoute({
    family: 'tracing',
    method: 'GET',
    path: '/health',
    summary: 'Health check used by the Weave SDK login()',
    auth: 'none',
    schema: { response: Type.Object({ status: Type.String() }) },
    operation: gatewayAlive,
    variables: () => ({}),
    response: () => ({ status: 'ok' }),
  }),
  defineRoute({
    family: 'tracing',
    method: 'GET',
    path: '/server_info',
    summary: 'Trace server version information',
    auth: 'none',
    operation: gatewayAlive,
    variables: () => ({}),
    response: () => ({ min_required_weave_python_version: '0.52.0', trace_server_version: '0.1.0' }),
  }),
];
