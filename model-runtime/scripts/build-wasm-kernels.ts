/**
 * Assembles model-runtime/wasm/matmul.wat (WebAssembly text, SIMD) into
 * model-runtime/wasm/matmul-wasm.generated.ts, the bytes the runtime instantiates.
 * wabt is an npm dev dependency (JavaScript build, nothing downloaded); the
 * generated file is committed so that the runtime needs no build step, and
 * model-runtime/test/kernels.test.ts checks it still matches the source.
 *
 *   npx tsx model-runtime/scripts/build-wasm-kernels.ts [--check]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import createWabt from 'wabt';

const SOURCE = fileURLToPath(new URL('../wasm/matmul.wat', import.meta.url));
const TARGET = fileURLToPath(new URL('../wasm/matmul-wasm.generated.ts', import.meta.url));

/** The TypeScript module text for the current .wat source. */
export async function generatedMatmulModule(): Promise<string> {
  const wabt = await createWabt();
  const parsed = wabt.parseWat('matmul.wat', readFileSync(SOURCE, 'utf8'), { simd: true });
  try {
    parsed.validate();
    const { buffer } = parsed.toBinary({});
    return [
      '// Generated from matmul.wat by model-runtime/scripts/build-wasm-kernels.ts — do not edit.',
      `export const MATMUL_WASM_BASE64 =\n  '${Buffer.from(buffer).toString('base64')}';`,
      '',
    ].join('\n');
  } finally {
    parsed.destroy();
  }
}

export function committedMatmulModule(): string {
  return readFileSync(TARGET, 'utf8');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values } = parseArgs({ options: { check: { type: 'boolean', default: false } } });
  const text = await generatedMatmulModule();
  if (values.check) {
    if (text !== committedMatmulModule()) {
      console.error('matmul-wasm.generated.ts is out of date: run npx tsx model-runtime/scripts/build-wasm-kernels.ts');
      process.exit(1);
    }
  } else {
    writeFileSync(TARGET, text);
    console.log(`wrote ${TARGET}`);
  }
}
