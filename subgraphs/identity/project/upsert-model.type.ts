import { Field, InputType, ObjectType } from 'type-graphql';
import { Project } from './project.type.js';

/**
 * W&B's project upsert, as its clients send it (the Weave Python SDK creates a missing project with
 * `upsertModel(input: { id, name, entityName, description, repo }) { model { name description } }`; W&B calls a
 * project a "model" in this mutation).
 */
@InputType('UpsertModelInput', { description: "A project to create on first use or describe (W&B's upsertModel input)" })
export class UpsertModelInput {
  @Field(() => String, { description: 'Project name' }) name!: string;
  @Field(() => String, { nullable: true, description: "The owning entity; the caller's default entity when absent" })
  entityName?: string | null;
  @Field(() => String, { nullable: true, description: "The project's description; unchanged when absent" }) description?: string | null;
  @Field(() => String, {
    nullable: true,
    description: "W&B's project id, to rename a project by id; accepted for compatibility and not used (projects are addressed by entity and name)",
  })
  id?: string | null;
  @Field(() => String, { nullable: true, description: "W&B's source repository of the project; accepted for compatibility and not stored" })
  repo?: string | null;
}

@ObjectType('UpsertModelPayload', { description: "The project upsertModel created or described (W&B's payload)" })
export class UpsertModelPayload {
  @Field(() => Project, { description: 'The project' }) model!: Project;
  @Field(() => Project, { description: 'The project (W&B names it both ways)' }) project!: Project;
  @Field(() => Boolean, { description: 'This call created the project' }) inserted!: boolean;
}
