import { Transform, type Readable } from 'node:stream';
import { errorCodes, type FastifyInstance } from 'fastify';

/**
 * A request's body is read only once the request was admitted on its headers. Credentials are checked by onRequest
 * hooks (REST routes, /graphql), which run before this; here, when the body is about to be read:
 * - a declared Content-Length over the limit is refused with 413 before anything is read;
 * - a client that sent `Expect: 100-continue` is told to go on only now (Node would answer `100 Continue` as soon
 *   as the headers arrive, inviting the body of a request about to be refused);
 * - a request without a valid credential (request.principal null: anonymous /graphql, anonymous routes, unknown
 *   paths) may send at most `anonymousBodyLimitBytes`, counted as it arrives when no length is declared (chunked).
 */
export function admitBodiesAfterHeaders(app: FastifyInstance, options: { anonymousBodyLimitBytes: number }): void {
  // With a 'checkContinue' listener Node leaves `Expect: 100-continue` to the application: such requests then go
  // through Fastify like any other, and the hook below answers 100 Continue once the request is admitted.
  app.server.on('checkContinue', (request, response) => app.server.emit('request', request, response));
  app.addHook('preParsing', (request, reply, payload, done) => {
    const routeLimit = request.routeOptions.bodyLimit ?? Number.POSITIVE_INFINITY;
    const anonymous = request.principal === null;
    const limit = anonymous ? Math.min(options.anonymousBodyLimitBytes, routeLimit) : routeLimit;
    const declared = request.headers['content-length'];
    if (declared !== undefined && Number(declared) > limit) {
      done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
      return;
    }
    if (request.headers.expect?.toLowerCase() === '100-continue' && !reply.raw.headersSent) reply.raw.writeContinue();
    // A body without a declared length (chunked) is counted as it arrives; a declared one cannot exceed its length.
    const unbounded = declared === undefined && request.headers['transfer-encoding'] !== undefined;
    done(null, anonymous && unbounded && limit < routeLimit ? capped(payload, limit) : payload);
  });
}

/** The body stream, failing with 413 once more than `limit` bytes arrived (what Fastify does for the route limit). */
function capped(payload: Readable, limit: number): Readable {
  let received = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      received += chunk.length;
      if (received > limit) callback(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
      else callback(null, chunk);
    },
  });
  payload.pipe(counter);
  return counter;
}
