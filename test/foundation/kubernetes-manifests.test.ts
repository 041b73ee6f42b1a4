import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  KUBERNETES_DIR,
  loadManifests,
  StrictApiSchema,
  validateAgainstApiSchema,
  type KubernetesObject,
} from '../support/kubernetes-manifests.js';

/**
 * deploy/kubernetes (the Kustomize base of the distributed topology) checked as the API server would take it: every
 * object against the Kubernetes API's schema (kubernetes-models), strictly (no field the API does not define, which
 * Kubernetes would drop silently), and against itself (what kustomize applies, what Services and probes reach).
 */
const { files, kustomization, objects } = loadManifests();
const ofKind = (kind: string) => objects.filter(({ object }) => object.kind === kind);
const named = (kind: string, name: string) => ofKind(kind).find(({ object }) => object.metadata.name === name)?.object;
const deployments = ofKind('Deployment');
const containerOf = (deployment: KubernetesObject) => deployment.spec.template.spec.containers[0];
const configValue = (name: string, key: string): string | undefined => named('ConfigMap', name)?.data?.[key];

let schema: StrictApiSchema;
beforeAll(() => {
  schema = new StrictApiSchema();
});

describe('deploy/kubernetes against the Kubernetes API schemas', () => {
  it('applies every file: kustomization.yaml lists each manifest, and only those', () => {
    expect([...kustomization.resources].sort()).toEqual(files);
    expect(objects.length).toBeGreaterThan(0);
  });

  it('validates every object with kubernetes-models (types, formats, required fields)', async () => {
    for (const { at, object } of objects) {
      await expect(validateAgainstApiSchema(object), at).resolves.toBeUndefined();
    }
  });

  it('uses no field the API does not define, at any depth', () => {
    for (const { at, object } of objects) expect(schema.unknownFields(object), at).toEqual([]);
  });

  it('the strict walk and the schema validation do catch mistakes (they are not vacuous)', async () => {
    const deployment = structuredClone(named('Deployment', 'trellis-gateway')!);
    const container = containerOf(deployment);
    container.readinesProbe = container.readinessProbe; // a typo Kubernetes would drop with the probe
    container.resources.limitz = container.resources.limits;
    container.env.push({ name: 'X', valueFrom: { configMapKeyRef: { name: 'x', key: 'x', optinal: true } } });
    deployment.spec.template.metadata.labels['anything.example.com/goes'] = 'labels are a map';
    expect(schema.unknownFields(deployment)).toEqual([
      'spec.template.spec.containers[0].env[3].valueFrom.configMapKeyRef.optinal: not a field of IConfigMapKeySelector',
      'spec.template.spec.containers[0].resources.limitz: not a field of IResourceRequirements',
      'spec.template.spec.containers[0].readinesProbe: not a field of IContainer',
    ]);
    const wrongType = structuredClone(named('Deployment', 'trellis-gateway')!);
    wrongType.spec.replicas = 'two';
    await expect(validateAgainstApiSchema(wrongType)).rejects.toThrow(/replicas/);
  });

  it('writes no integer with a leading zero (YAML 1.1, as Kubernetes reads it, takes 0440 as octal; YAML 1.2 as decimal)', () => {
    for (const file of files) expect(readFileSync(path.join(KUBERNETES_DIR, file), 'utf8'), file).not.toMatch(/:\s+0\d+\s*(#.*)?$/m);
  });
});

describe('deploy/kubernetes against itself', () => {
  const podLabels = (deployment: KubernetesObject): Record<string, string> => deployment.spec.template.metadata.labels;
  const selects = (selector: Record<string, string>, labels: Record<string, string>) =>
    Object.entries(selector).every(([key, value]) => labels[key] === value);
  const ports = (deployment: KubernetesObject): { name?: string; containerPort: number }[] => containerOf(deployment).ports;
  const isDeclaredPort = (deployment: KubernetesObject, port: string | number) =>
    ports(deployment).some((declared) => declared.name === port || declared.containerPort === port);

  it('has a Deployment per service of the topology, each selecting its own pods', () => {
    expect(deployments.map(({ object }) => object.metadata.name).sort()).toEqual(
      ['automations', 'gateway', 'identity', 'inference', 'registry', 'tracing', 'training'].map((name) => `trellis-${name}`),
    );
    for (const { at, object } of deployments) {
      expect(selects(object.spec.selector.matchLabels, podLabels(object)), at).toBe(true);
      const others = deployments.filter((other) => other.object !== object);
      for (const other of others) expect(selects(object.spec.selector.matchLabels, podLabels(other.object)), `${at} selects ${other.at}`).toBe(false);
    }
  });

  it('every Service selects exactly one Deployment’s pods and targets a port its container declares', () => {
    for (const { at, object: service } of ofKind('Service')) {
      const selected = deployments.filter(({ object }) => selects(service.spec.selector, podLabels(object)));
      expect(selected.map(({ at: deploymentAt }) => deploymentAt), at).toHaveLength(1);
      for (const port of service.spec.ports) expect(isDeclaredPort(selected[0]!.object, port.targetPort ?? port.port), `${at} port ${port.name}`).toBe(true);
    }
  });

  it('probes liveness on /healthz and readiness on /readyz, on the container’s port', () => {
    for (const { at, object } of deployments) {
      const container = containerOf(object);
      expect(container.livenessProbe.httpGet.path, at).toBe('/healthz');
      expect(container.readinessProbe.httpGet.path, at).toBe('/readyz');
      expect(container.startupProbe.httpGet.path, at).toBe('/healthz');
      for (const probe of [container.livenessProbe, container.readinessProbe, container.startupProbe]) {
        expect(isDeclaredPort(object, probe.httpGet.port), at).toBe(true);
      }
    }
  });

  it('the services’ URLs in the ConfigMap reach a Service on its port', () => {
    const urls = [
      ...configValue('trellis-links', 'TRELLIS_SUBGRAPH_URLS')!.split(',').map((entry) => entry.split('=')[1]!),
      configValue('trellis-links', 'TRELLIS_GATEWAY_URL')!,
    ];
    for (const url of urls) {
      const { hostname, port } = new URL(url);
      const service = named('Service', hostname);
      expect(service, url).toBeDefined();
      expect(service!.spec.ports.map((servicePort: { port: number }) => String(servicePort.port)), url).toContain(port);
    }
  });

  it('runs every container as non-root with a read-only root filesystem, requests and limits, and writable volumes where it writes', () => {
    for (const { at, object } of deployments) {
      const pod = object.spec.template.spec;
      const container = containerOf(object);
      expect(pod.securityContext.runAsNonRoot, at).toBe(true);
      expect(container.securityContext, at).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
      for (const resource of ['cpu', 'memory']) {
        expect(container.resources.requests[resource], `${at} requests ${resource}`).toBeDefined();
        expect(container.resources.limits[resource], `${at} limits ${resource}`).toBeDefined();
      }
      const mounted = container.volumeMounts.map((mount: { mountPath: string }) => mount.mountPath);
      expect(mounted, at).toContain(configValue('trellis-common', 'TRELLIS_DATA_DIR'));
      expect(mounted, at).toContain('/tmp');
    }
  });

  it('gives the shutdown time to finish: grace period above the preStop sleep plus TRELLIS_SHUTDOWN_DELAY_MS and _TIMEOUT_MS', () => {
    const shutdownSeconds =
      (Number(configValue('trellis-common', 'TRELLIS_SHUTDOWN_DELAY_MS') ?? 0) + Number(configValue('trellis-common', 'TRELLIS_SHUTDOWN_TIMEOUT_MS'))) / 1000;
    for (const { at, object } of deployments) {
      const [command, seconds] = containerOf(object).lifecycle.preStop.exec.command;
      expect(command, at).toBe('sleep');
      expect(object.spec.template.spec.terminationGracePeriodSeconds, at).toBeGreaterThan(Number(seconds) + shutdownSeconds);
    }
  });

  it('mounts each *_FILE from the Secret it names, key by key', () => {
    for (const { at, object } of deployments) {
      const container = containerOf(object);
      const files = (container.env ?? []).filter((variable: { name: string }) => variable.name.endsWith('_FILE'));
      expect(files.length, at).toBeGreaterThan(0);
      for (const { name, value } of files) {
        const mount = container.volumeMounts.find((candidate: { mountPath: string }) => value.startsWith(`${candidate.mountPath}/`));
        const volume = object.spec.template.spec.volumes.find((candidate: { name: string }) => candidate.name === mount?.name);
        expect(volume?.secret, `${at} ${name}`).toBeDefined();
        const item = volume.secret.items.find((candidate: { path: string }) => `${mount.mountPath}/${candidate.path}` === value);
        expect(item?.key, `${at} ${name}`).toBe(name.replace(/_FILE$/, ''));
      }
    }
  });

  it('scales the gateway: at least two replicas, an autoscaler on CPU and a disruption budget over its pods', () => {
    const gateway = named('Deployment', 'trellis-gateway')!;
    expect(gateway.spec.replicas).toBeGreaterThanOrEqual(2);
    const autoscaler = named('HorizontalPodAutoscaler', 'trellis-gateway')!;
    expect(autoscaler.spec.scaleTargetRef).toEqual({ apiVersion: 'apps/v1', kind: 'Deployment', name: 'trellis-gateway' });
    expect(autoscaler.spec.minReplicas).toBeGreaterThanOrEqual(2);
    expect(autoscaler.spec.metrics).toContainEqual(expect.objectContaining({ type: 'Resource', resource: expect.objectContaining({ name: 'cpu' }) }));
    const budget = named('PodDisruptionBudget', 'trellis-gateway')!;
    expect(selects(budget.spec.selector.matchLabels, podLabels(gateway))).toBe(true);
    expect(budget.spec.minAvailable).toBeLessThan(autoscaler.spec.minReplicas);
  });
});

