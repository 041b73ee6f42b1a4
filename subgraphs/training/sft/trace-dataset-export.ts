import { ValidationFailedError, type ValidationIssue } from '../../../platform/errors.js';
import type { GraphCaller, PlatformGraph } from '../../../platform/graphql/platform-graph.js';
import { validateOrThrow } from '../../../platform/validation.js';
import { TraceDatasetSftExportBody } from '../training.schemas.js';
import { TRAIN_FILE } from './training-data-url.js';

/** What an export made: the registry artifact version holding train.jsonl. */
export interface SftExport {
  /** `wandb-artifact:///{entity}/{project}/{artifact}:v<N>`, what an SFT job's training_data_url takes. */
  trainingDataUrl: string;
  artifact: string;
  artifactVersion: string;
  lineCount: number;
  /** The Dataset version exported (`weave:///{entity}/{project}/object/{name}:{digest}`). */
  datasetRef: string;
}

const DATASET_QUERY = `query SftTraceDataset($entity: String!, $project: String!, $name: String!, $version: String!) {
  project(entity: $entity, name: $project) { traceObject(objectId: $name, digest: $version) { digest val } }
}`;
const ROWS_QUERY = `query SftTraceDatasetRows($entity: String!, $project: String!, $digest: String!, $after: String) {
  project(entity: $entity, name: $project) { traceTableRows(digest: $digest, first: 100, after: $after) { nodes { val } pageInfo { hasNextPage endCursor } } }
}`;
const CREATE_ARTIFACT = `mutation SftExportArtifact($input: CreateArtifactVersionInput!) { createArtifactVersion(input: $input) { version } }`;

interface DatasetResult {
  project: { traceObject: { digest: string; val: unknown } | null };
}
interface RowsResult {
  project: { traceTableRows: { nodes: { val: unknown }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } };
}

type ChatMessage = { role: string; content: string };
const TABLE_REF = /^weave:\/\/\/[^/]+\/[^/]+\/table\/([0-9A-Za-z]+)$/;

/**
 * Exports a Weave Dataset version (tracing's, e.g. built from traces) as the chat JSONL SFT jobs train on, into a
 * registry artifact. Both sides are read and written through the federated graph as the caller — the dataset from
 * tracing (Project.traceObject, traceTableRows), the artifact into the registry (createArtifactVersion) — so each
 * subgraph applies its own access rules and training reads no other subgraph's tables.
 */
export class TraceDatasetExporter {
  constructor(private readonly graph: PlatformGraph) {}

  /** `where`: the path of the export's fields in the request body (issues are reported there). */
  async export(caller: GraphCaller, body: unknown, where: readonly string[] = ['body']): Promise<SftExport> {
    const at = (field: string) => [...where, field];
    const input = validateOrThrow(TraceDatasetSftExportBody, body);
    const entity = input.entity ?? caller.principal.defaultEntity;
    const version = input.version ?? 'latest';
    const promptColumn = input.prompt_column ?? 'question';
    const completionColumn = input.completion_column ?? 'expected';
    const found = (await this.graph.execute<DatasetResult>(DATASET_QUERY, { entity, project: input.project, name: input.dataset, version }, caller)).project
      .traceObject;
    const rowsRef = (found?.val as { _type?: unknown; rows?: unknown } | null | undefined) ?? null;
    if (!found || rowsRef?._type !== 'Dataset') {
      throw new ValidationFailedError([{ loc: at('dataset'), msg: `No Dataset ${input.dataset}:${version} in ${entity}/${input.project}`, type: 'value_error' }]);
    }
    const rows = await this.rowsOf(caller, entity, input.project, rowsRef.rows);
    const issues: ValidationIssue[] = [];
    const lines = rows.map((row, index) => {
      const messages = toMessages(row[promptColumn]);
      const completion = row[completionColumn];
      if (!messages) issues.push({ loc: at('prompt_column'), msg: `Row ${index} has no text or chat messages in column "${promptColumn}"`, type: 'value_error' });
      if (typeof completion !== 'string' || completion === '') {
        issues.push({ loc: at('completion_column'), msg: `Row ${index} has no text in column "${completionColumn}"`, type: 'value_error' });
      }
      const system: ChatMessage[] = input.system_prompt ? [{ role: 'system', content: input.system_prompt }] : [];
      return JSON.stringify({ messages: [...system, ...(messages ?? []), { role: 'assistant', content: completion }] });
    });
    if (rows.length === 0) issues.push({ loc: at('dataset'), msg: 'The Dataset version has no rows', type: 'value_error' });
    if (issues.length > 0) throw new ValidationFailedError(issues.slice(0, 20));
    const artifact = input.artifact ?? `${input.dataset}-sft`;
    const datasetRef = `weave:///${entity}/${input.project}/object/${input.dataset}:${found.digest}`;
    const created = await this.graph.execute<{ createArtifactVersion: { version: string } }>(
      CREATE_ARTIFACT,
      {
        input: {
          entity,
          project: input.project,
          collection: artifact,
          type: 'dataset',
          metadata: { source_dataset: datasetRef, prompt_column: promptColumn, completion_column: completionColumn, lines: lines.length },
          files: [{ path: TRAIN_FILE, contentBase64: Buffer.from(`${lines.join('\n')}\n`).toString('base64') }],
        },
      },
      caller,
    );
    const artifactVersion = created.createArtifactVersion.version;
    return {
      trainingDataUrl: `wandb-artifact:///${entity}/${input.project}/${artifact}:${artifactVersion}`,
      artifact,
      artifactVersion,
      lineCount: lines.length,
      datasetRef,
    };
  }

  /** Every row of the Dataset's table, 100 a page (the gateway's cost limit refuses 1,000); rows given inline are taken as they are. */
  private async rowsOf(caller: GraphCaller, entity: string, project: string, rows: unknown): Promise<Record<string, unknown>[]> {
    if (Array.isArray(rows)) return rows as Record<string, unknown>[];
    const match = typeof rows === 'string' ? TABLE_REF.exec(rows) : null;
    if (!match) return [];
    const all: Record<string, unknown>[] = [];
    let after: string | null = null;
    for (;;) {
      const page: RowsResult['project']['traceTableRows'] = (await this.graph.execute<RowsResult>(ROWS_QUERY, { entity, project, digest: match[1], after }, caller)).project
        .traceTableRows;
      all.push(...page.nodes.map((node) => (node.val ?? {}) as Record<string, unknown>));
      if (!page.pageInfo.hasNextPage) return all;
      after = page.pageInfo.endCursor;
    }
  }
}

/** A prompt as chat messages: text is one user message; a list of {role, content: text} is taken as it is. */
function toMessages(prompt: unknown): ChatMessage[] | null {
  if (typeof prompt === 'string') return prompt === '' ? null : [{ role: 'user', content: prompt }];
  if (!Array.isArray(prompt) || prompt.length === 0) return null;
  const messages = prompt.filter((m): m is ChatMessage => !!m && typeof m === 'object' && typeof m.role === 'string' && typeof m.content === 'string');
  return messages.length === prompt.length ? messages.map(({ role, content }) => ({ role, content })) : null;
}
