import { Field, Int, ObjectType } from 'type-graphql';
import type { SftExport } from './trace-dataset-export.js';

@ObjectType('SftDatasetExport', { description: 'A Weave Dataset version exported as SFT chat JSONL (train.jsonl) into a registry artifact version' })
export class SftDatasetExport {
  @Field(() => String, { description: 'wandb-artifact:///{entity}/{project}/{artifact}:v<N>: the training_data_url an SFT job takes' }) trainingDataUrl!: string;
  @Field(() => String, { description: 'The registry collection' }) artifact!: string;
  @Field(() => String, { description: 'The new version in it (v<N>)' }) artifactVersion!: string;
  @Field(() => Int, { description: 'How many JSONL lines (one per dataset row)' }) lineCount!: number;
  @Field(() => String, { description: 'The exported Dataset version (weave:///{entity}/{project}/object/{name}:{digest})' }) datasetRef!: string;
}

export const toSftDatasetExport = (made: SftExport): SftDatasetExport => Object.assign(new SftDatasetExport(), made);
