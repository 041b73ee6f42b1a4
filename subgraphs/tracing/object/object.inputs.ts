import { typedInput } from '../../../platform/graphql/typed-input.js';
import { ReadArguments, typedInputPath } from '../query/read-arguments.js';
import { FileCreateSchema, ObjCreateSchema, ObjectFilterSchema, ObjectSortBySchema, TableCreateSchema, TableRowFilterSchema } from './object.schemas.js';

/** The GraphQL inputs of the object, table and file operations, generated from the REST request schemas (one contract). */
export const TraceObjectCreateInput = typedInput(ObjCreateSchema);
export const TraceTableCreateInput = typedInput(TableCreateSchema);
export const TraceFileCreateInput = typedInput(FileCreateSchema);
export const TraceObjectFilterInput = typedInput(ObjectFilterSchema);
export const ObjectSortInput = typedInput(ObjectSortBySchema.items);
export const TraceTableRowFilterInput = typedInput(TableRowFilterSchema);

/** Where /obj/create and /table/create carry the object and the table. */
export const AT_OBJECT = { arg: 'input', wire: ['body', 'obj'] };
export const AT_TABLE = { arg: 'input', wire: ['body', 'table'] };

/** The arguments of Project.traceObjects and their places in the body of /objs/query. */
export const OBJECTS_ARGUMENTS = new ReadArguments([
  { arg: 'sortBy', wire: ['body', 'sort_by'] },
  { arg: 'filter', wire: ['body', 'filter'], path: typedInputPath(TraceObjectFilterInput) },
]);
