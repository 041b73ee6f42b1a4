import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const compose = readFileSync(path.resolve(import.meta.dirname, '../../docker-compose.yml'), 'utf8');

describe('docker-compose.yml (the distributed topology for users)', () => {
  it('refuses to start without the secrets every process must share and that must outlive a container', () => {
    // `${VAR:?message}`: docker compose stops with the message when VAR is unset or empty. A process generating its
    // own would break: signatures between gateway and subgraphs, team secrets after the automations container is
    // re-created (its data directory goes with it) or when it is scaled.
    for (const name of ['TRELLIS_INTERNAL_SECRET', 'TRELLIS_SECRET_KEY']) {
      expect(compose, name).toMatch(new RegExp(`^\\s+${name}: \\$\\{${name}:\\?[^}]+\\}$`, 'm'));
    }
  });
});

/** deploy/compose/haproxy.cfg as sections (`backend gateways` → its lines), comments and blank lines left out. */
function haproxySections(text: string): Map<string, string[]> {
  const sections = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*$/, '').trim();
    if (!line) continue;
    if (/^\S/.test(raw)) sections.set(line, (current = []));
    else current?.push(line.replace(/\s+/g, ' '));
  }
  return sections;
}

interface ComposeService {
  image?: string;
  ports?: string[];
  volumes?: string[];
  deploy?: { replicas?: number };
  depends_on?: Record<string, { condition: string }>;
  environment?: Record<string, string>;
  stop_grace_period?: string;
}
const services = (parse(compose, { merge: true }) as { services: Record<string, ComposeService> }).services;
const haproxyPath = 'deploy/compose/haproxy.cfg';
const haproxy = haproxySections(readFileSync(path.resolve(import.meta.dirname, '../..', haproxyPath), 'utf8'));
const seconds = (duration: string) => Number(/^(\d+)s$/.exec(duration)?.[1] ?? NaN);

describe('docker-compose.yml: the balancer in front of the gateway replicas', () => {
  it('HAProxy owns port 8080 with its configuration from the repository, and starts once the gateways are healthy', () => {
    const balancer = services.balancer!;
    expect(balancer.image).toMatch(/^haproxy:\d/);
    expect(balancer.volumes).toContain(`./${haproxyPath}:/usr/local/etc/haproxy/haproxy.cfg:ro`);
    expect(balancer.ports).toEqual(['8080:8080']);
    expect(balancer.depends_on?.gateway).toEqual({ condition: 'service_healthy' });
    expect(haproxy.get('frontend trellis')).toEqual(expect.arrayContaining(['bind :8080', 'default_backend gateways']));
    // No Trellis container publishes a port of its own: two gateway replicas could not both bind the host's 8080.
    for (const [name, service] of Object.entries(services)) {
      if (name !== 'balancer') expect(service.ports, name).toBeUndefined();
    }
  });

  it('every gateway replica is behind it, on the port the gateways listen on, checked on /readyz', () => {
    const gateway = services.gateway!;
    const replicas = gateway.deploy?.replicas ?? 1;
    expect(replicas).toBeGreaterThanOrEqual(2);
    const backend = haproxy.get('backend gateways')!;
    const template = backend.map((line) => /^server-template \S+ (\d+) gateway:(\d+)$/.exec(line)).find(Boolean);
    expect(template, 'a server-template over the gateway service name').toBeTruthy();
    // Docker's DNS answers the service name with every replica's address; the template has a slot for each.
    expect(Number(template![1])).toBeGreaterThanOrEqual(replicas);
    expect(template![2]).toBe(gateway.environment!.PORT);
    expect(backend).toEqual(expect.arrayContaining(['balance roundrobin', 'option httpchk GET /readyz', 'http-check expect status 200']));
    expect(backend.find((line) => line.startsWith('default-server '))).toMatch(/ check( |$)/);
    // The services that call the gateway (TRELLIS_GATEWAY_URL) go through the balancer too, not to one replica.
    for (const name of ['training', 'automations']) expect(services[name]!.environment!.TRELLIS_GATEWAY_URL, name).toBe('http://balancer:8080/graphql');
  });

  it('retries a request on another gateway only when the connection could not be made', () => {
    const defaults = haproxy.get('defaults')!;
    expect(defaults.filter((line) => line.startsWith('retry-on '))).toEqual(['retry-on conn-failure']);
    expect(defaults).toContain('option redispatch');
    expect(defaults).toContain('mode http');
  });

  it('replicates the services whose background work runs once however many replicas run, and not inference or training', () => {
    const replicas = Object.fromEntries(Object.entries(services).map(([name, service]) => [name, service.deploy?.replicas ?? 1]));
    expect(replicas).toMatchObject({ gateway: 2, identity: 2, registry: 2, tracing: 2, automations: 2, inference: 1, training: 1 });
  });

  it('a stopping process leaves the balancer before it stops listening, and compose waits for its drain', () => {
    const backend = haproxy.get('backend gateways')!.find((line) => line.startsWith('default-server '))!;
    const inter = Number(/ inter (\d+)s/.exec(backend)?.[1]);
    const fall = Number(/ fall (\d+)/.exec(backend)?.[1]);
    for (const [name, service] of Object.entries(services)) {
      if (!service.environment?.DATABASE_URL) continue; // postgres, the balancer
      const delayMs = Number(service.environment.TRELLIS_SHUTDOWN_DELAY_MS);
      // HAProxy takes a gateway out after `fall` failed checks `inter` apart: the leave phase outlasts that.
      expect(delayMs, name).toBeGreaterThan(inter * fall * 1000);
      const drainMs = Number(service.environment.TRELLIS_SHUTDOWN_TIMEOUT_MS ?? 10_000);
      expect(seconds(service.stop_grace_period ?? '10s') * 1000, name).toBeGreaterThan(delayMs + drainMs);
    }
  });
});
