import { ValidationFailedError } from '../../../platform/errors.js';
import type { TypedInput } from '../../../platform/graphql/typed-input.js';
import type { Loc } from './query-expression.js';
import type { PathMapping } from './query.inputs.js';

/** One argument of a read field and where the same value sits in the REST body. */
export interface ReadArgument {
  arg: string;
  wire: Loc;
  /** How paths below the argument differ between the two forms (none: the same). */
  path?: PathMapping;
}

/**
 * The arguments of a read (Project.calls, Project.feedback, …) and their places in the REST request. The services
 * validate a read in the REST body's terms (`["body","sort_by",1,"field"]`, `["body","query","$expr",…]`), one
 * rule for both kinds of client; `run` reports those issues at the GraphQL arguments (`["sortBy",1,"field"]`,
 * `["query","expr",…]`), and the REST route maps them back with `wireLocation` (its `issueLocation`).
 */
export class ReadArguments {
  constructor(private readonly args: ReadArgument[]) {}

  graphqlLocation(loc: Loc): Loc {
    for (const { arg, wire, path } of this.args) {
      if (wire.every((part, index) => loc[index] === part)) {
        const rest = loc.slice(wire.length);
        return [arg, ...(path ? path.toGraphQL(rest) : rest)];
      }
    }
    return loc;
  }

  wireLocation(loc: Loc): Loc {
    const argument = this.args.find(({ arg }) => loc[0] === arg);
    if (!argument) return loc;
    const rest = loc.slice(1);
    return [...argument.wire, ...(argument.path ? argument.path.toWire(rest) : rest)];
  }

  /** Runs a read, reporting its validation issues at the GraphQL arguments. */
  async run<T>(read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (error) {
      if (!(error instanceof ValidationFailedError) || !error.issues) throw error;
      throw new ValidationFailedError(
        error.issues.map((issue) => ({ ...issue, loc: this.graphqlLocation(issue.loc) })),
        error.message,
      );
    }
  }
}

/** The paths inside a typed input argument (its fields camelCase in GraphQL, snake_case on the wire). */
export function typedInputPath(input: TypedInput<any>): PathMapping {
  const at = { arg: [], wire: [] };
  return { toGraphQL: (rest) => input.locate(rest, at), toWire: (rest) => input.wireLocation(rest, at) };
}
