import type { Scope } from '../../../src/auth/scopes';
import { ENVIRONMENT, PROJECT, UNKNOWN_UUID, WORKSPACE } from './fakes';

export type Method = 'get' | 'post' | 'delete';

/** One endpoint of ../shared/spec/service-spec.md, with a request that passes validation. */
export interface SpecEndpoint {
  /** The spec's number and name, e.g. "5. Get Thread". */
  name: string;
  method: Method;
  path: string;
  /** The scope its route requires (src/auth/scopes.ts). */
  scope: Scope;
  body?: object;
}

const thread = `/v2/threads/${UNKNOWN_UUID}`;
const message = `${thread}/messages/${UNKNOWN_UUID}`;

/** The spec's twelve endpoints ("Endpoints" 1 to 12), in its order. */
export const SPEC_ENDPOINTS: SpecEndpoint[] = [
  { name: '1. Invoke Assistant', method: 'post', path: `/${WORKSPACE}/${PROJECT}/helper/${ENVIRONMENT}`, scope: 'invoke', body: {} },
  {
    name: '2. Invoke Deployed Prompt',
    method: 'post',
    path: `/${WORKSPACE}/${PROJECT}/summarize/${ENVIRONMENT}`,
    scope: 'invoke',
    body: {},
  },
  { name: '3. Create Thread', method: 'post', path: '/v2/threads', scope: 'threads:write', body: {} },
  { name: '4. List Threads', method: 'get', path: '/v2/threads', scope: 'threads:read' },
  { name: '5. Get Thread', method: 'get', path: thread, scope: 'threads:read' },
  { name: '6. Update Thread', method: 'post', path: thread, scope: 'threads:write', body: { metadata: {} } },
  { name: '7. Delete Thread', method: 'delete', path: thread, scope: 'threads:write' },
  {
    name: '8. Create Thread Message',
    method: 'post',
    path: `${thread}/messages`,
    scope: 'threads:write',
    body: { message: { content: 'hi' } },
  },
  { name: '9. List Thread Messages', method: 'get', path: `${thread}/messages`, scope: 'threads:read' },
  { name: '10. Get Thread Message', method: 'get', path: message, scope: 'threads:read' },
  { name: '11. Update Thread Message', method: 'post', path: message, scope: 'threads:write', body: { metadata: {} } },
  { name: '12. Delete Thread Message', method: 'delete', path: message, scope: 'threads:write' },
];
