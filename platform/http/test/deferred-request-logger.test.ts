import { Writable } from 'node:stream';
import Fastify from 'fastify';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { DeferredRequestLogger, deferredChildLogger } from '../deferred-request-logger.js';

function capture(level = 'info') {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      done();
    },
  });
  const logger = pino({ level, redact: { paths: ['*.secret'], censor: '[redacted]' } }, stream);
  return { logger, lines };
}

const written = () => new Promise((resolve) => setImmediate(resolve));

describe('DeferredRequestLogger (a request logger made into a pino child on first use)', () => {
  it('writes what a pino child would: the request binding, the parent redaction, the level filter', async () => {
    const { logger, lines } = capture('info');
    const deferred = new DeferredRequestLogger(logger, { reqId: 'r-1' }, {});
    deferred.debug('not at this level');
    deferred.info({ detail: { secret: 's3cr3t', kept: 1 } }, 'hello %s', 'there');
    deferred.error(new Error('boom'));
    await written();
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ level: 30, reqId: 'r-1', msg: 'hello there', detail: { secret: '[redacted]', kept: 1 } });
    expect(lines[1]).toMatchObject({ level: 50, reqId: 'r-1', err: { message: 'boom' } });
    expect(deferred.isLevelEnabled('debug')).toBe(false);
    expect(deferred.bindings()).toMatchObject({ reqId: 'r-1' });
    deferred.child({ step: 'x' }).warn('from a grandchild');
    await written();
    expect(lines[2]).toMatchObject({ level: 40, reqId: 'r-1', step: 'x', msg: 'from a grandchild' });
  });

  it('makes no pino child for a request that logs nothing or only below the level', () => {
    const { logger } = capture('warn');
    let children = 0;
    const counting = Object.create(logger) as typeof logger;
    counting.child = ((...args: Parameters<typeof logger.child>) => {
      children++;
      return logger.child(...args);
    }) as typeof logger.child;
    const deferred = new DeferredRequestLogger(counting, { reqId: 'r-2' }, {});
    deferred.info('below warn');
    deferred.debug('below warn');
    expect(deferred.level).toBe('warn');
    expect(children).toBe(0);
    deferred.warn('at warn');
    deferred.error('again');
    expect(children).toBe(1);
  });

  it('is what Fastify hands a route as request.log, bound to the request id', async () => {
    const { logger, lines } = capture('info');
    const app = Fastify({ loggerInstance: logger, childLoggerFactory: deferredChildLogger, disableRequestLogging: true });
    app.get('/', async (request) => {
      request.log.info('in the handler');
      return { ok: true };
    });
    const response = await app.inject({ method: 'GET', url: '/' });
    expect(response.statusCode).toBe(200);
    await written();
    expect(lines.find((line) => line.msg === 'in the handler')).toMatchObject({ reqId: expect.any(String) });
    await app.close();
  });

  it('lets a route with its own log level write below the platform level', async () => {
    const { logger, lines } = capture('info');
    const app = Fastify({ loggerInstance: logger, childLoggerFactory: deferredChildLogger, disableRequestLogging: true });
    app.get('/chatty', { logLevel: 'debug' }, async (request) => {
      request.log.debug('detail of a chatty route');
      return { ok: true };
    });
    expect((await app.inject({ method: 'GET', url: '/chatty' })).statusCode).toBe(200);
    await written();
    expect(lines.find((line) => line.msg === 'detail of a chatty route')).toMatchObject({ level: 20 });
    await app.close();
  });
});
