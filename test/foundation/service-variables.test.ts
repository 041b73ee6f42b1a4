import { mkdtemp, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SUBGRAPHS } from '../../subgraphs/index.js';
import {
  DISTRIBUTED_SERVICES,
  isDistributedService,
  missingVariables,
  requiredVariables,
  type DistributedService,
} from '../../server/service-variables.js';
import { loadManifests, type KubernetesObject } from '../support/kubernetes-manifests.js';
import { REPO_ROOT, spawnEntry } from '../support/processes.js';

/**
 * The drift test: every variable a service needs (server/service-variables.ts, the list serve-subgraph.ts itself
 * checks at start) is given to that service by docker-compose.yml and by the Kubernetes base (deploy/kubernetes) —
 * directly, through a ConfigMap, or for a secret setting as `<NAME>_FILE` — so adding a requirement to the code, or
 * dropping a variable from either file, fails here rather than in someone's cluster.
 */
type Environment = Record<string, string | undefined>;

/** The environment the image itself sets (its last stage's ENV lines): every container of both files starts from it. */
function imageEnvironment(): Environment {
  const dockerfile = readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8');
  const lastStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  const environment: Environment = {};
  for (const line of lastStage.split('\n').filter((candidate) => candidate.startsWith('ENV '))) {
    for (const [, name, value] of line.slice(4).matchAll(/(\w+)=(\S+)/g)) environment[name!] = value;
  }
  return environment;
}

/** Which service a container runs, from its command (compose) or args (Kubernetes), as the image's entry point takes it. */
function serviceOf(command: readonly string[]): DistributedService {
  const [script, name] = command;
  if (script === 'dist/server/main.js') return 'gateway';
  if (script === 'dist/server/serve-subgraph.js' && name !== undefined && isDistributedService(name)) return name;
  throw new Error(`not a Trellis service command: ${command.join(' ')}`);
}

/** One entry per container definition: which service it runs, and the environment it gets. */
interface Instance {
  name: string;
  service: DistributedService;
  environment: Environment;
}

function composeInstances(): Instance[] {
  const compose = parse(readFileSync(path.join(REPO_ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
    services: Record<string, { build?: unknown; command?: string[]; environment?: Record<string, string | number> }>;
  };
  // Trellis's containers are the ones built from this repository (PostgreSQL and a balancer are images).
  return Object.entries(compose.services)
    .filter(([, service]) => service.build !== undefined)
    .map(([name, service]) => {
      const environment = { ...imageEnvironment() };
      for (const [key, value] of Object.entries(service.environment ?? {})) environment[key] = String(value);
      return { name, service: serviceOf(service.command ?? ['dist/server/main.js']), environment };
    });
}

function kubernetesInstances(): Instance[] {
  const { objects } = loadManifests();
  const configMaps = new Map(objects.filter(({ object }) => object.kind === 'ConfigMap').map(({ object }) => [object.metadata.name, object.data ?? {}]));
  return objects
    .filter(({ object }) => object.kind === 'Deployment')
    .map(({ object: deployment }) => {
      const container = (deployment as KubernetesObject).spec.template.spec.containers[0];
      const environment = { ...imageEnvironment() };
      for (const source of container.envFrom ?? []) {
        // A Secret's keys are not in the base (the operator creates it): only ConfigMaps count here.
        if (source.configMapRef) Object.assign(environment, configMaps.get(source.configMapRef.name));
      }
      for (const variable of container.env ?? []) {
        const fromConfigMap = variable.valueFrom?.configMapKeyRef;
        if (fromConfigMap) environment[variable.name] = configMaps.get(fromConfigMap.name)?.[fromConfigMap.key];
        else if (variable.valueFrom?.secretKeyRef) environment[variable.name] = '(from a Secret)';
        else environment[variable.name] = variable.value;
      }
      return { name: deployment.metadata.name, service: serviceOf(container.args), environment };
    });
}

const deployments = { 'docker-compose.yml': composeInstances(), 'deploy/kubernetes': kubernetesInstances() };

describe('the variables each service needs, in docker-compose.yml and deploy/kubernetes', () => {
  it('declares the variables of every subgraph the platform has', () => {
    expect([...DISTRIBUTED_SERVICES].sort()).toEqual(['gateway', ...SUBGRAPHS.map((subgraph) => subgraph.name)].sort());
  });

  it('requires at least the settings without which the topology cannot work', () => {
    const names = (service: DistributedService) => requiredVariables(service).map(({ name }) => name);
    for (const service of DISTRIBUTED_SERVICES) expect(names(service), service).toEqual(expect.arrayContaining(['DATABASE_URL', 'TRELLIS_INTERNAL_SECRET', 'HOST', 'PORT']));
    expect(names('gateway')).toContain('TRELLIS_SUBGRAPH_URLS');
    expect(names('automations')).toEqual(expect.arrayContaining(['TRELLIS_SECRET_KEY', 'TRELLIS_GATEWAY_URL']));
    expect(names('training')).toContain('TRELLIS_GATEWAY_URL');
  });

  for (const [file, instances] of Object.entries(deployments)) {
    it(`${file} runs every service and gives each every variable it needs`, () => {
      expect([...new Set(instances.map(({ service }) => service))].sort(), file).toEqual([...DISTRIBUTED_SERVICES].sort());
      for (const { name, service, environment } of instances) {
        expect(missingVariables(requiredVariables(service), environment).map((variable) => variable.name), `${file}: ${name} (${service})`).toEqual([]);
      }
    });

    it(`${file}: the check reports each variable once it is taken away (given directly or as <NAME>_FILE)`, () => {
      for (const { name: instance, service, environment } of instances) {
        for (const { name } of requiredVariables(service)) {
          const without = { ...environment, [name]: undefined, [`${name}_FILE`]: undefined };
          expect(missingVariables(requiredVariables(service), without).map((variable) => variable.name), `${file}: ${instance} without ${name}`).toEqual([name]);
        }
      }
    });
  }

  it('accepts a secret setting as <NAME>_FILE, and no other setting that way', () => {
    const required = requiredVariables('automations');
    const given = Object.fromEntries(required.map(({ name }) => [name, 'x']));
    expect(missingVariables(required, { ...given, TRELLIS_SECRET_KEY: undefined, TRELLIS_SECRET_KEY_FILE: '/run/secrets/key' })).toEqual([]);
    expect(missingVariables(required, { ...given, TRELLIS_GATEWAY_URL: undefined, TRELLIS_GATEWAY_URL_FILE: '/run/url' }).map(({ name }) => name)).toEqual(['TRELLIS_GATEWAY_URL']);
    expect(missingVariables(required, { ...given, TRELLIS_SECRET_KEY: '  ' }).map(({ name }) => name)).toEqual(['TRELLIS_SECRET_KEY']);
  });
});

describe('serve-subgraph.ts checks its own variables at start', () => {
  it('refuses to start without DATABASE_URL, in one line naming it (no stack trace)', async () => {
    const service = spawnEntry('server/serve-subgraph.ts', ['tracing'], { DATABASE_URL: '', DATABASE_URL_FILE: '', LOG_LEVEL: 'info' });
    expect(await service.exited).toBe(1);
    const fatal = service.output().split('\n').filter((line) => line.includes('"level":60'));
    expect(fatal, service.output()).toHaveLength(1);
    expect(JSON.parse(fatal[0]!).msg).toMatch(/^Trellis failed to start: the tracing service needs DATABASE_URL \(the shared PostgreSQL/);
    expect(service.output()).not.toMatch(/\n\s+at /);
  });

  it('warns, naming each, about the variables a deployment must give that are not set', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'trellis-service-variables-'));
    // Nothing listens on port 1: the service stops once it tries the database, after its checks.
    const service = spawnEntry('server/serve-subgraph.ts', ['automations'], {
      DATABASE_URL: 'postgres://trellis@127.0.0.1:1/trellis',
      TRELLIS_DATA_DIR: dataDir,
      TRELLIS_INTERNAL_SECRET: '',
      TRELLIS_SECRET_KEY: '',
      TRELLIS_GATEWAY_URL: '',
      HOST: '',
      PORT: '',
    });
    try {
      await service.exited;
      const warning = service
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { level: number; unset?: string[]; msg: string })
        .find((entry) => entry.unset);
      expect(warning, service.output()).toMatchObject({ level: 40, unset: ['TRELLIS_INTERNAL_SECRET', 'HOST', 'PORT', 'TRELLIS_GATEWAY_URL', 'TRELLIS_SECRET_KEY'] });
      expect(warning!.msg).toContain('TRELLIS_SECRET_KEY (the master key of team secrets');
    } finally {
      service.kill('SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
