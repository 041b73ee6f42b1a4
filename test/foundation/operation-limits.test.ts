import { getIntrospectionQuery } from 'graphql';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestPlatform, type TestPlatform } from '../support/platform.js';

// Regression tests for the probe's introspection amplification: 3,000 aliased `__schema` selections from an
// anonymous caller blocked the event loop for 34 s and answered 345 MB, because depth and cost skipped
// introspection; and /graphql/ws applied no limits at all.
let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(async () => {
  await platform?.close();
});

const aliased = (count: number, selection: string) => `{ ${Array.from({ length: count }, (_, index) => `a${index}: ${selection}`).join(' ')} }`;

describe('operation limits on /graphql', () => {
  it('refuses aliased introspection before executing it, for anonymous callers too', async () => {
    for (const [count, key] of [[2, null], [300, null], [300, ADMIN_KEY], [3000, ADMIN_KEY]] as const) {
      const started = Date.now();
      const { status, body } = await platform.graphql(aliased(count, '__schema { types { name fields { name args { name } } } }'), undefined, key);
      expect(status, `${count} aliases`).toBe(400);
      // 3,000 aliases are over the document's token limit: refused while parsing, before any rule runs.
      expect(body.errors[0].extensions.code).toBe(count > 1000 ? 'GRAPHQL_PARSE_FAILED' : 'GRAPHQL_VALIDATION_FAILED');
      expect(body.data).toBeUndefined();
      expect(JSON.stringify(body).length).toBeLessThan(20_000);
      expect(Date.now() - started).toBeLessThan(5_000);
    }
    // Anonymous bodies that big are not even read (TRELLIS_ANONYMOUS_BODY_LIMIT_BYTES).
    expect((await platform.graphql(aliased(3000, '__schema { types { name } }'), undefined, null)).status).toBe(413);
  });

  it('counts __schema through fragments, however they are spread', async () => {
    const twice = 'query { ...A ...B } fragment A on Query { __schema { queryType { name } } } fragment B on Query { s: __schema { queryType { name } } }';
    expect((await platform.graphql(twice, undefined, null)).body.errors[0].message).toMatch(/introspection too often/);
    // A chain of fragments each spreading the next twice would be 2^40 selections if expanded naively.
    const chain = Array.from({ length: 40 }, (_, level) => `fragment F${level} on Query { ${level === 39 ? '__typename' : `...F${level + 1} x${level}: __typename ...F${level + 1}`} }`);
    const started = Date.now();
    const { status } = await platform.graphql(`query { ...F0 } ${chain.join(' ')}`, undefined, null);
    expect(status).toBe(400);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('still answers the standard introspection query schema tools send', async () => {
    const { status, body } = await platform.graphql(getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true }), undefined, null);
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
    expect(body.data.__schema.types.length).toBeGreaterThan(100);
  });

  it('limits aliases on any field, and the size of the document itself', async () => {
    const many = await platform.graphql(aliased(51, 'viewer { username }'));
    expect(many.status).toBe(400);
    expect(many.body.errors[0].message).toMatch(/too many aliases: the limit is 50/);
    expect((await platform.graphql(aliased(50, 'viewer { username }'))).body.data.a49.username).toBe('admin');
    const huge = await platform.graphql(`{ ${'__typename '.repeat(25_000)} }`);
    expect(huge.status).toBe(400);
    expect(huge.body.errors[0].extensions.code).toBe('GRAPHQL_PARSE_FAILED');
  });
});

describe('operation limits on /graphql/ws', () => {
  const subscribe = (query: string) => {
    const client = createClient({ url: `${platform.url.replace('http', 'ws')}/graphql/ws`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${ADMIN_KEY}` }, retryAttempts: 0 });
    const errors = new Promise<any[]>((resolve, reject) => {
      client.subscribe({ query }, { next: (value) => resolve((value.errors as any[] | undefined) ?? []), error: (error) => (Array.isArray(error) ? resolve(error) : reject(error)), complete: () => resolve([]) });
    });
    return errors.finally(() => client.dispose());
  };

  it('refuse what /graphql refuses, for queries and subscriptions, before running them', async () => {
    const started = Date.now();
    expect((await subscribe(aliased(300, '__schema { types { name } }')))[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect((await subscribe(aliased(3000, '__schema { types { name } }')))[0].extensions.code).toBe('GRAPHQL_PARSE_FAILED');
    expect(Date.now() - started).toBeLessThan(5_000);
    const aliases = await subscribe(`subscription { platformEvents { ${Array.from({ length: 51 }, (_, index) => `e${index}: id`).join(' ')} } }`);
    expect(aliases[0]).toMatchObject({ message: expect.stringMatching(/too many aliases/), extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } });
    expect((await subscribe(`{ ${'__typename '.repeat(25_000)} }`))[0].extensions.code).toBe('GRAPHQL_PARSE_FAILED');
    // Within the limits, the same connection kind still runs queries.
    expect(await subscribe('{ webhooks(team: "trellis") { id } }')).toEqual([]);
  });

  it('apply the configured depth and cost limits', async () => {
    const strict = await startTestPlatform({ env: { TRELLIS_GRAPHQL_MAX_DEPTH: '3', TRELLIS_GRAPHQL_MAX_COST: '30' } });
    try {
      const deep = '{ automations(entity: "trellis") { nodes { webhook { id } } } }';
      const costly = `{ ${Array.from({ length: 20 }, (_, index) => `w${index}: webhooks(team: "trellis") { id name }`).join(' ')} }`;
      for (const [query, message] of [[deep, /nested too deeply/], [costly, /too expensive/]] as const) {
        const http = await strict.graphql(query);
        expect(http.status).toBe(400);
        expect(http.body.errors[0].message).toMatch(message);
        const client = createClient({ url: `${strict.url.replace('http', 'ws')}/graphql/ws`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${ADMIN_KEY}` }, retryAttempts: 0 });
        const errors = await new Promise<any[]>((resolve, reject) => {
          client.subscribe({ query }, { next: (value) => resolve((value.errors as any[] | undefined) ?? []), error: (error) => (Array.isArray(error) ? resolve(error) : reject(error)), complete: () => resolve([]) });
        });
        await client.dispose();
        expect(errors[0]).toMatchObject({ message: expect.stringMatching(message), extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } });
      }
    } finally {
      await strict.close();
    }
  });
});
