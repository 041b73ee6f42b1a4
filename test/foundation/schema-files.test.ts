import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { staleSchemaFiles } from '../../server/schema-files.js';

describe('schema/', () => {
  it('matches the SDL printed from the subgraph code and the composed supergraph (run `npm run schema`)', async () => {
    expect(await staleSchemaFiles(path.resolve(import.meta.dirname, '../../schema'))).toEqual([]);
  });
});
