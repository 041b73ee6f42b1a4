import { typedInput } from '../../../platform/graphql/typed-input.js';
import { MonitorBody } from './monitor.schemas.js';

/** The GraphQL input of createMonitor/updateMonitor, generated from the one schema the service validates with. */
export const MonitorInput = typedInput(MonitorBody);

/** The whole input is the validated body: issues at `["body", …]` are reported at `["input", …]`. */
export const AT_INPUT = { arg: 'input', wire: ['body'] };
