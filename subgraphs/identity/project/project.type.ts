import { Directive, Field, ObjectType } from 'type-graphql';

@ObjectType('Project', { description: 'A project of an entity; the family subgraphs hang their data off it' })
@Directive('@key(fields: "entity name")')
export class Project {
  id!: string;
  @Field(() => String, { description: 'Owning entity (team) name' }) entity!: string;
  @Field(() => String) name!: string;
  @Field(() => String, { description: '"entity/project"' }) fullName!: string;
  @Field(() => Date) createdAt!: Date;
}

export function toProject(row: { id: string; entity: string; name: string; createdAt: Date }): Project {
  return Object.assign(new Project(), { ...row, fullName: `${row.entity}/${row.name}` });
}
