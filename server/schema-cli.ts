import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateSchemaFiles, staleSchemaFiles } from './schema-files.js';

/** `npm run schema` (write) and `npm run schema:check` (fail when schema/ is stale). */
const schemaDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../schema');
const mode = process.argv[2] ?? 'write';

if (mode === 'write') {
  await mkdir(schemaDir, { recursive: true });
  for (const [file, content] of Object.entries(await generateSchemaFiles())) {
    await writeFile(path.join(schemaDir, file), content);
  }
  process.stdout.write(`schema files written to ${schemaDir}\n`);
} else {
  const stale = await staleSchemaFiles(schemaDir);
  if (stale.length) {
    process.stderr.write(`stale schema files: ${stale.join(', ')} — run \`npm run schema\`\n`);
    process.exit(1);
  }
  process.stdout.write('schema files are up to date\n');
}
