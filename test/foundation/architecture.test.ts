import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The shape docs/architecture.md describes, checked: the shared kernel (platform/) imports no family, no adapter,
 * no gateway and nothing of the composition root (server/), and no module of the sources imports itself back
 * through others (an import cycle makes load order, and so decorators and module state, fragile).
 */
const root = path.resolve(import.meta.dirname, '../..');
const SOURCE_DIRS = ['platform', 'server', 'gateway', 'subgraphs', 'rest-adapter', 'cli', 'model-runtime'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === 'test' || name === 'node_modules' ? [] : sourceFiles(full);
    return full.endsWith('.ts') && !full.endsWith('.test.ts') && !full.endsWith('.d.ts') ? [full] : [];
  });
}

const files = SOURCE_DIRS.flatMap((dir) => sourceFiles(path.join(root, dir)));
const importsOf = new Map(
  files.map((file) => {
    const source = readFileSync(file, 'utf8');
    const specifiers = [...source.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map((match) => match[1]);
    const targets = specifiers.map((specifier) => path.resolve(path.dirname(file), specifier).replace(/\.js$/, '.ts'));
    return [file, targets.filter((target) => target.endsWith('.ts'))];
  }),
);
const relative = (file: string) => path.relative(root, file);

describe('architecture', () => {
  it('the kernel (platform/) imports no family, adapter, gateway or composition root', () => {
    const outside = ['subgraphs', 'rest-adapter', 'gateway', 'server'].map((dir) => path.join(root, dir) + path.sep);
    const leaks = [...importsOf]
      .filter(([file]) => file.startsWith(path.join(root, 'platform') + path.sep))
      .flatMap(([file, targets]) => targets.filter((target) => outside.some((dir) => target.startsWith(dir))).map((target) => `${relative(file)} → ${relative(target)}`));
    expect(leaks).toEqual([]);
  });

  it('has no import cycles', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const visit = (file: string) => {
      state.set(file, 'open');
      stack.push(file);
      for (const target of importsOf.get(file) ?? []) {
        if (!importsOf.has(target)) continue;
        if (state.get(target) === 'open') cycles.push([...stack.slice(stack.indexOf(target)), target].map(relative).join(' → '));
        else if (!state.has(target)) visit(target);
      }
      stack.pop();
      state.set(file, 'done');
    };
    for (const file of importsOf.keys()) if (!state.has(file)) visit(file);
    expect(cycles).toEqual([]);
  });
});
