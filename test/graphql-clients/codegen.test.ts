import { mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generate } from '@graphql-codegen/cli';
import { buildClientSchema, buildSchema, getIntrospectionQuery, Kind, parse, printSchema, validate, type IntrospectionQuery } from 'graphql';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform.js';
import { CLIENT_USAGE_SOURCE } from './client-usage.js';

/**
 * Client code generation against the live graph: the documents a dashboard sends (documents/*.graphql) go through
 * @graphql-codegen (TypeScript types + TypedDocumentNodes) over the schema the running gateway serves, and a
 * client written against the generated code type-checks under strict TypeScript. A schema change that breaks
 * these clients fails here; when it is deliberate, update the documents and client-usage.ts with it.
 */
const DOCUMENTS_DIR = path.resolve(import.meta.dirname, 'documents');
const SUPERGRAPH_FILE = path.resolve(import.meta.dirname, '../../schema/supergraph.graphql');
const NODE_MODULES = path.resolve(import.meta.dirname, '../../node_modules');

/** How the schema's custom scalars look to a TypeScript client (strictScalars: a new scalar must be added here). */
const SCALARS = {
  DateTimeISO: 'string',
  JSON: 'unknown',
  JSONObject: 'Record<string, unknown>',
  BigInt: 'number',
  SafeInt: 'number',
};

let platform: TestPlatform;
let workDir: string;
let documents: { file: string; source: string }[];

beforeAll(async () => {
  [platform, workDir, documents] = await Promise.all([
    startTestPlatform({ workers: false }),
    mkdtemp(path.join(tmpdir(), 'trellis-graphql-clients-')),
    readdir(DOCUMENTS_DIR).then((files) =>
      Promise.all(
        files
          .filter((file) => file.endsWith('.graphql'))
          .sort()
          .map(async (file) => ({ file, source: await readFile(path.join(DOCUMENTS_DIR, file), 'utf8') })),
      ),
    ),
  ]);
});
afterAll(async () => {
  await platform?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

describe('GraphQL client documents (test/graphql-clients/documents)', () => {
  it('cover every family and are valid against the committed schema (schema/supergraph.graphql)', async () => {
    expect(documents.map(({ file }) => file)).toEqual(
      expect.arrayContaining(['automations.graphql', 'dashboard.graphql', 'identity.graphql', 'inference.graphql', 'registry.graphql', 'tracing.graphql', 'training.graphql']),
    );
    // The supergraph's join__/link__ definitions are extra types a client document never names, so validating
    // against the whole supergraph is validating against the API schema the gateway serves.
    const schema = buildSchema(await readFile(SUPERGRAPH_FILE, 'utf8'));
    for (const { file, source } of documents) {
      expect(validate(schema, parse(source)).map((error) => `${file}: ${error.message}`)).toEqual([]);
    }
  });

  it('generate TypedDocumentNodes from the live gateway schema, and a strict TypeScript client using them type-checks', async () => {
    const introspection = await platform.graphql<IntrospectionQuery>(getIntrospectionQuery());
    expect(introspection.body.errors).toBeUndefined();
    const schemaFile = path.join(workDir, 'schema.graphql');
    await writeFile(schemaFile, printSchema(buildClientSchema(introspection.body.data!)));

    const generatedFile = path.join(workDir, 'graphql.ts');
    const outputs: { filename: string; content: string }[] = await generate(
      {
        schema: schemaFile,
        documents: path.join(DOCUMENTS_DIR, '*.graphql'),
        generates: {
          [generatedFile]: {
            // typescript-operations 6 emits the enums and input types the documents use itself (with the `typescript`
            // plugin as well, every one of them would be declared twice).
            plugins: ['typescript-operations', 'typed-document-node'],
            config: { strictScalars: true, scalars: SCALARS, enumsAsTypes: true, useTypeImports: true },
          },
        },
        silent: true,
        errorsOnly: true,
      },
      false,
    );
    expect(outputs.map((output) => output.filename)).toEqual([generatedFile]);
    await writeFile(generatedFile, outputs[0]!.content);
    // KEEP_GENERATED=<file> keeps a copy of the generated code to read.
    if (process.env.KEEP_GENERATED) await writeFile(process.env.KEEP_GENERATED, outputs[0]!.content);
    // Every operation of every document got its TypedDocumentNode.
    for (const { source } of documents) {
      for (const definition of parse(source).definitions) {
        if (definition.kind === Kind.OPERATION_DEFINITION) expect(outputs[0]!.content).toContain(`export const ${definition.name!.value}Document =`);
      }
    }

    // The client is an ES module of its own, resolving packages from the repository's node_modules.
    await writeFile(path.join(workDir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    await symlink(NODE_MODULES, path.join(workDir, 'node_modules'), 'junction');
    const usageFile = path.join(workDir, 'client.ts');
    await writeFile(usageFile, CLIENT_USAGE_SOURCE);

    expect(typeCheck([usageFile])).toBe('');
  });

  it('stay within the gateway\'s depth and cost limits and run on a fresh platform without internal errors', async () => {
    const defaults: Record<string, unknown> = { entity: 'trellis', project: 'default', team: 'trellis' };
    for (const { file, source } of documents) {
      for (const definition of parse(source).definitions) {
        if (definition.kind !== Kind.OPERATION_DEFINITION || definition.operation !== 'query') continue;
        // Queries only (nothing changes); variables a fresh platform has no value for stay unset, which the
        // gateway reports as BAD_USER_INPUT only after validation (depth, cost, fields) has passed.
        const variables = Object.fromEntries(
          (definition.variableDefinitions ?? []).map((variable) => variable.variable.name.value).filter((name) => name in defaults).map((name) => [name, defaults[name]]),
        );
        const response = await platform.fetch('/graphql', {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${platform.adminKey}` },
          body: JSON.stringify({ query: source, operationName: definition.name!.value, variables }),
        });
        const body = (await response.json()) as { errors?: { message: string; extensions?: { code?: string } }[] };
        const where = `${file} ${definition.name!.value}`;
        const codes = (body.errors ?? []).map((error) => `${error.extensions?.code}: ${error.message}`);
        expect(response.status, `${where} ${codes.join('; ')}`).not.toBe(500);
        expect(
          codes.filter((code) => /^(GRAPHQL_VALIDATION_FAILED|GRAPHQL_PARSE_FAILED|INTERNAL|INTERNAL_SERVER_ERROR|undefined):/.test(code)),
          where,
        ).toEqual([]);
      }
    }
  });
});

/** Strict type check of the given files (and what they import); the formatted diagnostics, '' when clean. */
function typeCheck(files: string[]): string {
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2023.d.ts'],
    types: [],
    skipLibCheck: true,
    noUnusedLocals: true,
    noImplicitReturns: true,
    exactOptionalPropertyTypes: false,
  };
  const program = ts.createProgram(files, options);
  const diagnostics = ts.getPreEmitDiagnostics(program);
  return ts.formatDiagnostics(diagnostics, {
    getCanonicalFileName: (fileName) => fileName,
    getCurrentDirectory: () => path.dirname(files[0]!),
    getNewLine: () => '\n',
  });
}
