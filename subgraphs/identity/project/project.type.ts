import { Directive, Field, ObjectType } from 'type-graphql';
import { ENTITY_DESCRIPTIONS } from '../../../platform/graphql/entity-refs.js';

@ObjectType('Project', { description: 'A project of an entity; the family subgraphs hang their data off it' })
@Directive('@key(fields: "entity name")')
export class Project {
  id!: string;
  @Field(() => String, { description: ENTITY_DESCRIPTIONS.projectEntity }) entity!: string;
  @Field(() => String, { description: ENTITY_DESCRIPTIONS.projectName }) name!: string;
  @Field(() => String, { description: '"entity/project"' }) fullName!: string;
  @Field(() => Date, { description: 'When the project was created' }) createdAt!: Date;
}

export function toProject(row: { id: string; entity: string; name: string; createdAt: Date }): Project {
  return Object.assign(new Project(), { ...row, fullName: `${row.entity}/${row.name}` });
}
