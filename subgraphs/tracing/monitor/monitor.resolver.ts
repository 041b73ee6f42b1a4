import { Arg, Ctx, FieldResolver, Mutation, Resolver, Root } from 'type-graphql';
import { requireProjectAdmin, requireTeamMember } from '../../../platform/auth/authorize.js';
import type { GraphQLContext } from '../../../platform/graphql/context.js';
import { Project } from '../project/project.resolver.js';
import type { TracingServices } from '../services.js';
import { AT_INPUT, MonitorInput } from './monitor.inputs.js';
import { Monitor, MonitorBackfill, toMonitor } from './monitor.type.js';

const ENTITY = { description: 'Team of the project' };
const PROJECT = { description: 'Project name' };
const MONITOR_ID = { description: 'The monitor id' };

/** A project's monitors: listed for its members, defined and changed by its admins (and its team's). */
@Resolver(() => Project)
export class MonitorResolver {
  constructor(private readonly services: TracingServices) {}

  @FieldResolver(() => [Monitor], { description: "The project's monitors (online evaluation), oldest first, with their counts" })
  async monitors(@Root() project: Project, @Ctx() context: GraphQLContext): Promise<Monitor[]> {
    requireTeamMember(context, project.entity);
    const monitors = await this.services.monitors.list(`${project.entity}/${project.name}`);
    return monitors.map((monitor) => toMonitor(monitor));
  }

  @Mutation(() => Monitor, { description: "Project admins: a new monitor of the project's calls; it scores calls that end from now on" })
  async createMonitor(
    @Arg('entity', () => String, ENTITY) entity: string,
    @Arg('project', () => String, PROJECT) project: string,
    @Arg('input', () => MonitorInput.argType(), { description: 'The monitor' }) input: unknown,
    @Ctx() context: GraphQLContext,
  ): Promise<Monitor> {
    const principal = requireProjectAdmin(context, entity, project);
    const monitor = await MonitorInput.handle(input, AT_INPUT, (body) => this.services.monitors.create(principal.userId, `${entity}/${project}`, body));
    return toMonitor(monitor);
  }

  @Mutation(() => Monitor, { description: "Project admins: replaces a monitor's definition (its results and scores so far stay)" })
  async updateMonitor(
    @Arg('entity', () => String, ENTITY) entity: string,
    @Arg('project', () => String, PROJECT) project: string,
    @Arg('id', () => String, MONITOR_ID) id: string,
    @Arg('input', () => MonitorInput.argType(), { description: 'The new definition' }) input: unknown,
    @Ctx() context: GraphQLContext,
  ): Promise<Monitor> {
    requireProjectAdmin(context, entity, project);
    const monitor = await MonitorInput.handle(input, AT_INPUT, (body) => this.services.monitors.update(`${entity}/${project}`, id, body));
    return toMonitor(monitor);
  }

  @Mutation(() => Monitor, { description: 'Project admins: the monitor stops scoring new calls (events already published for it are passed over)' })
  async pauseMonitor(
    @Arg('entity', () => String, ENTITY) entity: string,
    @Arg('project', () => String, PROJECT) project: string,
    @Arg('id', () => String, MONITOR_ID) id: string,
    @Ctx() context: GraphQLContext,
  ): Promise<Monitor> {
    return this.setActive(context, entity, project, id, false);
  }

  @Mutation(() => Monitor, { description: 'Project admins: the monitor scores new calls again (calls ended while paused: see backfill)' })
  async resumeMonitor(
    @Arg('entity', () => String, ENTITY) entity: string,
    @Arg('project', () => String, PROJECT) project: string,
    @Arg('id', () => String, MONITOR_ID) id: string,
    @Ctx() context: GraphQLContext,
  ): Promise<Monitor> {
    return this.setActive(context, entity, project, id, true);
  }

  @Mutation(() => MonitorBackfill, {
    description:
      'Project admins: scores the ended calls that started in [from, to) which the monitor has not looked at yet (paused or not), as new calls are scored; repeating it changes nothing',
  })
  async backfillMonitor(
    @Arg('entity', () => String, ENTITY) entity: string,
    @Arg('project', () => String, PROJECT) project: string,
    @Arg('id', () => String, MONITOR_ID) id: string,
    @Arg('from', () => Date, { description: 'Calls started at or after this time' }) from: Date,
    @Arg('to', () => Date, { description: 'Calls started before this time' }) to: Date,
    @Ctx() context: GraphQLContext,
  ): Promise<MonitorBackfill> {
    requireProjectAdmin(context, entity, project);
    const result = await this.services.monitors.backfill(`${entity}/${project}`, id, from, to);
    return { calls: result.calls, scored: result.scored, skippedBySampling: result.skipped, failed: result.failed, resumeFrom: result.resumeFrom };
  }

  @Mutation(() => Boolean, { description: 'Project admins: deletes a monitor and its counts (the scores it wrote stay as feedback); false when there was none' })
  async deleteMonitor(
    @Arg('entity', () => String, ENTITY) entity: string,
    @Arg('project', () => String, PROJECT) project: string,
    @Arg('id', () => String, MONITOR_ID) id: string,
    @Ctx() context: GraphQLContext,
  ): Promise<boolean> {
    requireProjectAdmin(context, entity, project);
    return this.services.monitors.delete(`${entity}/${project}`, id);
  }

  /** Pause and resume: project admins only. */
  private async setActive(context: GraphQLContext, entity: string, project: string, id: string, active: boolean): Promise<Monitor> {
    requireProjectAdmin(context, entity, project);
    return toMonitor(await this.services.monitors.setActive(`${entity}/${project}`, id, active));
  }
}
