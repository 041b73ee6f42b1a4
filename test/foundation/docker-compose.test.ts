import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

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
