import { describe, expect, it } from 'vitest';
import { ValidationFailedError } from '../../../platform/errors.js';
import { parseTemplate, renderTemplate, validateTemplate, type EventVariables } from '../automation/payload-template.js';

const variables: EventVariables = {
  project_name: 'proj "quoted" \\ name',
  entity_name: 'acme',
  event_type: 'ADD_ARTIFACT_ALIAS',
  event_author: 'alice',
  alias: 'production',
  tag: '',
  artifact_collection_name: 'weights',
  artifact_version: { id: 'v-1', name: 'weights:v3', metadata: { lr: 0.1 } },
  artifact_version_string: 'acme/proj/weights:v3',
  artifact_metadata: { lr: 0.1, owner: 'ops"}' },
  metric_value: 0.25,
};
const render = (template: string, secrets: Record<string, string> = {}) =>
  JSON.parse(renderTemplate(validateTemplate(template, new Set(Object.keys(secrets)), ['payload']), variables, secrets));

describe('payload templates', () => {
  it('escapes values inside JSON strings, so quotes cannot break out or inject keys', () => {
    const body = render('{"text": "Project ${project_name} by ${event_author}", "owner": "${artifact_metadata.owner}"}');
    expect(body).toEqual({ text: 'Project proj "quoted" \\ name by alice', owner: 'ops"}' });
  });

  it('turns a string that is exactly "${artifact_version}" into the object, and inserts bare placeholders as JSON values', () => {
    const body = render('{"version": "${artifact_version}", "label": "v=${artifact_version}", "value": ${metric_value}, "who": ${event_author}}');
    expect(body.version).toEqual({ id: 'v-1', name: 'weights:v3', metadata: { lr: 0.1 } });
    expect(body.label).toBe('v={"id":"v-1","name":"weights:v3","metadata":{"lr":0.1}}');
    expect(body.value).toBe(0.25);
    expect(body.who).toBe('alice');
  });

  it('substitutes secrets by ${NAME}, $NAME and ${ACCESS_TOKEN}; other $words stay literal', () => {
    const body = render('{"a": "${GH_TOKEN}", "b": "Bearer $GH_TOKEN", "c": "${ACCESS_TOKEN}", "d": "costs $5 or $HOME"}', {
      GH_TOKEN: 'ghp_x"y',
      ACCESS_TOKEN: 'tok',
    });
    expect(body).toEqual({ a: 'ghp_x"y', b: 'Bearer ghp_x"y', c: 'tok', d: 'costs $5 or $HOME' });
  });

  it('renders the documented repository-dispatch and chat-card examples', () => {
    const dispatch = render(
      '{"event_type": "BUILD_AND_DEPLOY", "client_payload": {"event_author": "${event_author}", "artifact_version": "${artifact_version}", "artifact_version_string": "${artifact_version_string}", "artifact_collection_name": "${artifact_collection_name}", "project_name": "${project_name}", "entity_name": "${entity_name}"}}',
    );
    expect(dispatch).toEqual({
      event_type: 'BUILD_AND_DEPLOY',
      client_payload: {
        event_author: 'alice',
        artifact_version: variables.artifact_version,
        artifact_version_string: 'acme/proj/weights:v3',
        artifact_collection_name: 'weights',
        project_name: 'proj "quoted" \\ name',
        entity_name: 'acme',
      },
    });
    const card = render(
      '{"@type": "MessageCard", "summary": "${event_type}", "sections": [{"activityTitle": "${event_type} in ${project_name}", "facts": [{"name": "Alias", "value": "${alias}"}, {"name": "Version", "value": "${artifact_version_string}"}]}]}',
    );
    expect(card.sections[0].activityTitle).toBe('ADD_ARTIFACT_ALIAS in proj "quoted" \\ name');
    expect(card.sections[0].facts).toEqual([
      { name: 'Alias', value: 'production' },
      { name: 'Version', value: 'acme/proj/weights:v3' },
    ]);
  });

  it('rejects unknown variables, nested metadata keys, unknown secrets and templates that are not JSON', () => {
    const reject = (template: string, message: RegExp, secrets: string[] = []) => {
      try {
        validateTemplate(template, new Set(secrets), ['payload']);
      } catch (error) {
        expect(error).toBeInstanceOf(ValidationFailedError);
        expect((error as ValidationFailedError).issues![0]!.msg).toMatch(message);
        return;
      }
      throw new Error(`accepted ${template}`);
    };
    reject('{"a": "${projectname}"}', /Unknown payload variable \$\{projectname\}/);
    reject('{"a": "${artifact_metadata.a.b}"}', /Unknown payload variable/);
    reject('{"a": "${GH_TOKEN}"}', /Unknown payload variable \$\{GH_TOKEN\}/);
    reject('{"a": "${ACCESS_TOKEN}"}', /Unknown payload variable \$\{ACCESS_TOKEN\}/);
    reject('{"a": ${event_author}', /not valid JSON/);
    reject('not json', /not valid JSON/);
    expect(() => validateTemplate('{"a": "${GH_TOKEN}"}', new Set(['GH_TOKEN']), ['payload'])).not.toThrow();
  });

  it('treats escaped quotes inside strings as part of the string', () => {
    const parsed = parseTemplate('{"a": "say \\"${alias}\\"", "b": "${alias}"}', new Set());
    expect(parsed.placeholders.map((p) => [p.inString, p.wholeString])).toEqual([
      [true, false],
      [true, true],
    ]);
    expect(JSON.parse(renderTemplate(parsed, variables, {}))).toEqual({ a: 'say "production"', b: 'production' });
  });
});
