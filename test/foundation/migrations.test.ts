import { afterAll, describe, expect, it } from 'vitest';
import { connectDatabase, type DatabaseConnection } from '../../platform/db/connection.js';
import { SUBGRAPHS } from '../../subgraphs/index.js';
import { createTestDatabase } from '../support/database.js';

const connections: DatabaseConnection[] = [];
afterAll(async () => {
  await Promise.all(connections.map((connection) => connection.close()));
});

describe('migrations', () => {
  it('apply once even when two processes start at the same time, and are a no-op the second time', async () => {
    const url = await createTestDatabase('t', { empty: true });
    const first = connectDatabase(url, { max: 4 });
    const second = connectDatabase(url, { max: 4 });
    connections.push(first, second);
    for (const subgraph of SUBGRAPHS) {
      const [a, b] = await Promise.all([subgraph.migrate(first), subgraph.migrate(second)]);
      expect(a.length + b.length).toBeGreaterThan(0);
      expect(a.filter((name) => b.includes(name))).toEqual([]); // never applied twice
      expect(await subgraph.migrate(first)).toEqual([]);
    }
    const schemas = await first.root
      .selectFrom('information_schema.schemata')
      .select('schema_name')
      .where('schema_name', 'in', SUBGRAPHS.map((subgraph) => subgraph.name))
      .execute();
    expect(schemas.map((row) => row.schema_name).sort()).toEqual(SUBGRAPHS.map((subgraph) => subgraph.name).sort());
  });
});
