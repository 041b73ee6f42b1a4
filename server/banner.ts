/** What `npm start` prints once the platform answers: where each surface is. */
export function startBanner(url: string, processes = 1): string {
  return [
    '',
    `Trellis is running at ${url}${processes > 1 ? `  (${processes} processes, one port)` : ''}`,
    `  Dashboard              ${url}/ui/`,
    `  GraphQL (gateway)      ${url}/graphql  (open it in a browser: the GraphQL explorer)`,
    `  Tracing (Family A)     ${url}/traces`,
    `  Inference (Family B)   ${url}/inference/v1`,
    `  Training (Family C)    ${url}/training`,
    `  REST docs / OpenAPI    ${url}/docs  ${url}/openapi.json`,
    `  Health / metrics       ${url}/healthz  ${url}/readyz  ${url}/metrics`,
    '',
  ].join('\n') + '\n';
}
