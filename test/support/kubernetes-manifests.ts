import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { parseAllDocuments, parse } from 'yaml';
import { REPO_ROOT } from './processes.js';

/** The Kustomize base of the distributed topology. */
export const KUBERNETES_DIR = path.join(REPO_ROOT, 'deploy/kubernetes');

export interface ManifestObject {
  /** `gateway.yaml#2`: where it is written, for messages. */
  at: string;
  file: string;
  object: KubernetesObject;
}

export interface KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  [field: string]: any;
}

/** Every object of every YAML file in deploy/kubernetes (kustomization.yaml apart), and the kustomization. */
export function loadManifests(): { files: string[]; kustomization: any; objects: ManifestObject[] } {
  const files = readdirSync(KUBERNETES_DIR).filter((file) => /\.ya?ml$/.test(file) && file !== 'kustomization.yaml').sort();
  const objects: ManifestObject[] = [];
  for (const file of files) {
    const documents = parseAllDocuments(readFileSync(path.join(KUBERNETES_DIR, file), 'utf8'), { uniqueKeys: true });
    for (const [index, document] of documents.entries()) {
      if (document.errors.length > 0) throw new Error(`${file}#${index}: ${document.errors.map((error) => error.message).join('; ')}`);
      const object = document.toJS() as KubernetesObject | null;
      if (object !== null) objects.push({ at: `${file}#${index}`, file, object });
    }
  }
  const kustomization = parse(readFileSync(path.join(KUBERNETES_DIR, 'kustomization.yaml'), 'utf8'));
  return { files, kustomization, objects };
}

/** The kubernetes-models module and interface of each kind the base uses. */
const KINDS: Record<string, { module: string; model: string; declaration: string }> = {
  'v1/ConfigMap': { module: 'kubernetes-models/v1/ConfigMap', model: 'ConfigMap', declaration: 'v1/ConfigMap.d.ts' },
  'v1/Service': { module: 'kubernetes-models/v1/Service', model: 'Service', declaration: 'v1/Service.d.ts' },
  'apps/v1/Deployment': { module: 'kubernetes-models/apps/v1/Deployment', model: 'Deployment', declaration: 'apps/v1/Deployment.d.ts' },
  'autoscaling/v2/HorizontalPodAutoscaler': {
    module: 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler',
    model: 'HorizontalPodAutoscaler',
    declaration: 'autoscaling/v2/HorizontalPodAutoscaler.d.ts',
  },
  'policy/v1/PodDisruptionBudget': {
    module: 'kubernetes-models/policy/v1/PodDisruptionBudget',
    model: 'PodDisruptionBudget',
    declaration: 'policy/v1/PodDisruptionBudget.d.ts',
  },
};

export function kindKey(object: Pick<KubernetesObject, 'apiVersion' | 'kind'>): string {
  return `${object.apiVersion}/${object.kind}`;
}

/**
 * kubernetes-models' validation against the API's schema (types, formats, required fields, enums): throws on a
 * violation. It ignores fields the schema does not have; `unknownFields` reports those.
 */
export async function validateAgainstApiSchema(object: KubernetesObject): Promise<void> {
  const kind = KINDS[kindKey(object)];
  if (!kind) throw new Error(`no schema here for ${kindKey(object)}: add it to KINDS`);
  const module = (await import(kind.module)) as Record<string, new (data: unknown) => { validate(): void }>;
  new module[kind.model]!(object).validate();
}

/**
 * A strict walk of an object over its kind's API types, reporting every key the API does not define, with its path
 * (`spec.template.spec.containers[0].readinesProbe`): Kubernetes drops unknown fields (a warning at most), so a typo
 * would silently remove a probe or a limit.
 *
 * kubernetes-models ships its schemas compiled to validator functions (`_schemas/*.js`, no JSON schema), with the
 * same definitions as TypeScript declarations (generated from the same OpenAPI document): the walk follows those
 * with the TypeScript checker — property names, nested types, arrays, and string index signatures (labels, data,
 * resource quantities), which accept any key. A type that does not resolve is reported, never accepted.
 */
export class StrictApiSchema {
  private readonly checker: ts.TypeChecker;
  private readonly roots = new Map<string, ts.Type>();

  constructor() {
    const packageDir = path.join(REPO_ROOT, 'node_modules/kubernetes-models');
    const files = Object.values(KINDS).map((kind) => path.join(packageDir, kind.declaration));
    const program = ts.createProgram(files, {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      strict: true,
      noEmit: true,
      types: [],
    });
    this.checker = program.getTypeChecker();
    for (const [key, kind] of Object.entries(KINDS)) {
      const source = program.getSourceFile(path.join(packageDir, kind.declaration));
      const moduleSymbol = source && this.checker.getSymbolAtLocation(source);
      const declared = moduleSymbol && this.checker.getExportsOfModule(moduleSymbol).find((symbol) => symbol.name === `I${kind.model}`);
      if (!declared) throw new Error(`kubernetes-models declares no I${kind.model} in ${kind.declaration}`);
      this.roots.set(key, this.checker.getDeclaredTypeOfSymbol(declared));
    }
  }

  /** Every key of `object` (at any depth) that its kind's API type does not define, as paths. */
  unknownFields(object: KubernetesObject): string[] {
    const root = this.roots.get(kindKey(object));
    if (!root) return [`${kindKey(object)}: no schema here for this kind`];
    const problems: string[] = [];
    this.walk(object, root, '', problems);
    return problems;
  }

  private walk(value: unknown, declared: ts.Type, at: string, problems: string[]): void {
    if (value === null || typeof value !== 'object') return; // scalars: kubernetes-models checks their types
    const type = this.checker.getNonNullableType(declared);
    if (type.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) {
      problems.push(`${at || '(root)'}: its schema type did not resolve (${this.checker.typeToString(type)})`);
      return;
    }
    if (Array.isArray(value)) {
      const element = this.elementType(type);
      if (!element) problems.push(`${at}: a list where the API has ${this.checker.typeToString(type)}`);
      else value.forEach((item, index) => this.walk(item, element, `${at}[${index}]`, problems));
      return;
    }
    const objectType = this.objectMember(type);
    if (!objectType) {
      problems.push(`${at}: an object where the API has ${this.checker.typeToString(type)}`);
      return;
    }
    const indexType = this.checker.getIndexTypeOfType(objectType, ts.IndexKind.String);
    for (const [key, child] of Object.entries(value)) {
      const childAt = at ? `${at}.${key}` : key;
      const property = this.checker.getPropertyOfType(objectType, key);
      if (property) this.walk(child, this.checker.getTypeOfSymbol(property), childAt, problems);
      else if (indexType) this.walk(child, indexType, childAt, problems);
      else problems.push(`${childAt}: not a field of ${this.checker.typeToString(objectType)}`);
    }
  }

  private elementType(type: ts.Type): ts.Type | undefined {
    const candidates = type.isUnion() ? type.types : [type];
    const list = candidates.find((candidate) => this.checker.isArrayType(candidate));
    return list && this.checker.getTypeArguments(list as ts.TypeReference)[0];
  }

  private objectMember(type: ts.Type): ts.Type | undefined {
    const candidates = type.isUnion() ? type.types : [type];
    return candidates.find((candidate) => candidate.flags & ts.TypeFlags.Object && !this.checker.isArrayType(candidate));
  }
}
