import { SECRET_SETTINGS } from '../platform/config.js';

/**
 * The environment each service of the distributed topology must be given, declared once: serve-subgraph.ts checks
 * its own at start, and test/foundation/service-variables.test.ts checks that docker-compose.yml and the Kubernetes
 * manifests (deploy/kubernetes) give every service all of its variables, so neither drifts from the code.
 *
 * Two kinds, because not every omission can be refused at start without breaking a legitimate use:
 * - `atStart`: the service cannot run at all without it, and refuses to start (one line naming the variables).
 * - `forDeployment`: the service starts without it (a developer running services from one checkout shares one data
 *   directory and needs none of these), but a deployment of separate containers is broken without it, and only
 *   later: a secret generated per container, features answering UNAVAILABLE, a port nobody can reach. It is logged
 *   as a warning at start.
 */
export interface ServiceVariables {
  atStart: readonly RequiredVariable[];
  forDeployment: readonly RequiredVariable[];
}

export interface RequiredVariable {
  name: string;
  /** What goes wrong without it, said in the start-up message. */
  why: string;
}

export const DISTRIBUTED_SERVICES = ['gateway', 'identity', 'registry', 'tracing', 'inference', 'training', 'automations'] as const;
export type DistributedService = (typeof DISTRIBUTED_SERVICES)[number];

const DATABASE: RequiredVariable = { name: 'DATABASE_URL', why: 'the shared PostgreSQL; without it a process would start an embedded one of its own' };
const INTERNAL_SECRET: RequiredVariable = {
  name: 'TRELLIS_INTERNAL_SECRET',
  why: 'the gateway and every service must sign and check identities with one secret; each container would generate its own',
};
const HOST: RequiredVariable = { name: 'HOST', why: 'the default 127.0.0.1 cannot be reached from another container' };
const PORT: RequiredVariable = { name: 'PORT', why: 'the port the other services and the health checks are configured to reach' };
const GATEWAY_URL = (feature: string): RequiredVariable => ({
  name: 'TRELLIS_GATEWAY_URL',
  why: `${feature} reads other subgraphs through the gateway; without it that answers UNAVAILABLE`,
});

const SUBGRAPH_SERVICE: ServiceVariables = { atStart: [DATABASE], forDeployment: [INTERNAL_SECRET, HOST, PORT] };

export const SERVICE_VARIABLES: Record<DistributedService, ServiceVariables> = {
  gateway: {
    atStart: [],
    forDeployment: [
      DATABASE,
      INTERNAL_SECRET,
      HOST,
      PORT,
      { name: 'TRELLIS_SUBGRAPH_URLS', why: 'without it the gateway runs every subgraph in its own process instead of reaching the services' },
    ],
  },
  identity: SUBGRAPH_SERVICE,
  registry: SUBGRAPH_SERVICE,
  tracing: SUBGRAPH_SERVICE,
  inference: SUBGRAPH_SERVICE,
  training: { ...SUBGRAPH_SERVICE, forDeployment: [...SUBGRAPH_SERVICE.forDeployment, GATEWAY_URL('an SFT job')] },
  automations: {
    ...SUBGRAPH_SERVICE,
    forDeployment: [
      ...SUBGRAPH_SERVICE.forDeployment,
      GATEWAY_URL('createAutomation'),
      {
        name: 'TRELLIS_SECRET_KEY',
        why: 'the master key of team secrets; one generated into a container is lost with it, and with it every stored secret',
      },
    ],
  },
};

export function isDistributedService(name: string): name is DistributedService {
  return (DISTRIBUTED_SERVICES as readonly string[]).includes(name);
}

/** Every variable the service needs, of both kinds. */
export function requiredVariables(service: DistributedService): RequiredVariable[] {
  const { atStart, forDeployment } = SERVICE_VARIABLES[service];
  return [...atStart, ...forDeployment];
}

/**
 * The variables of `required` that `env` does not give: neither a non-empty value nor, for a secret setting, a
 * `<NAME>_FILE` (platform/config.ts reads the file into the setting).
 */
export function missingVariables(required: readonly RequiredVariable[], env: Readonly<Record<string, string | undefined>>): RequiredVariable[] {
  return required.filter(({ name }) => !given(env, name) && !(isSecretSetting(name) && given(env, `${name}_FILE`)));
}

function given(env: Readonly<Record<string, string | undefined>>, name: string): boolean {
  return (env[name] ?? '').trim() !== '';
}

export function isSecretSetting(name: string): boolean {
  return (SECRET_SETTINGS as readonly string[]).includes(name);
}

/** One line for a start-up message: `NAME (why); NAME (why)`. */
export function describeVariables(variables: readonly RequiredVariable[]): string {
  return variables.map(({ name, why }) => `${name} (${why})`).join('; ');
}
