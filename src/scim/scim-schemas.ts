/** The schema URNs of RFC 7643 and RFC 7644 this surface speaks (docs/security.md, "SCIM"). */
export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const LIST_RESPONSE_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const PATCH_OP_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const SERVICE_PROVIDER_CONFIG_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig';
export const RESOURCE_TYPE_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ResourceType';
export const SCHEMA_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Schema';
/** Entra and Okta send it (manager, department): accepted and not stored. */
export const ENTERPRISE_USER_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

/** The most resources one list answers with (`count` above it is cut to it), as ServiceProviderConfig says. */
export const MAX_RESULTS = 200;

/** RFC 7643 §5: what this service provider supports. */
export function serviceProviderConfig(baseUrl: string): Record<string, unknown> {
  return {
    schemas: [SERVICE_PROVIDER_CONFIG_SCHEMA],
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_RESULTS },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'OAuth Bearer Token',
        description: "A workspace's SCIM token (POST /v2/workspaces/{workspace}/scim-tokens), sent as `Authorization: Bearer <token>`",
        specUri: 'https://www.rfc-editor.org/info/rfc6750',
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${baseUrl}/ServiceProviderConfig` },
  };
}

const RESOURCE_TYPES = [
  { id: 'User', name: 'User', endpoint: '/Users', description: 'A person', schema: USER_SCHEMA },
  { id: 'Group', name: 'Group', endpoint: '/Groups', description: 'A group; its displayName maps to roles', schema: GROUP_SCHEMA },
];

/** RFC 7643 §6. */
export function resourceTypes(baseUrl: string): Record<string, unknown>[] {
  return RESOURCE_TYPES.map((type) => ({
    schemas: [RESOURCE_TYPE_SCHEMA],
    ...type,
    schemaExtensions: [],
    meta: { resourceType: 'ResourceType', location: `${baseUrl}/ResourceTypes/${type.id}` },
  }));
}

interface Attribute {
  name: string;
  type: 'string' | 'boolean' | 'complex' | 'reference';
  multiValued?: boolean;
  required?: boolean;
  caseExact?: boolean;
  mutability?: 'readOnly' | 'readWrite' | 'immutable';
  uniqueness?: 'none' | 'server';
  referenceTypes?: string[];
  subAttributes?: Attribute[];
  description: string;
}

/** RFC 7643 §2.2's defaults, written out: clients read every characteristic. */
function attribute(a: Attribute): Record<string, unknown> {
  return {
    name: a.name,
    type: a.type,
    multiValued: a.multiValued ?? false,
    description: a.description,
    required: a.required ?? false,
    caseExact: a.caseExact ?? false,
    mutability: a.mutability ?? 'readWrite',
    returned: 'default',
    uniqueness: a.uniqueness ?? 'none',
    ...(a.referenceTypes ? { referenceTypes: a.referenceTypes } : {}),
    ...(a.subAttributes ? { subAttributes: a.subAttributes.map(attribute) } : {}),
  };
}

const USER_ATTRIBUTES: Attribute[] = [
  {
    name: 'userName',
    type: 'string',
    required: true,
    uniqueness: 'server',
    description: "The person's e-mail address (or any name, with an e-mail in emails)",
  },
  {
    name: 'name',
    type: 'complex',
    description: "The person's name",
    subAttributes: [
      { name: 'givenName', type: 'string', description: 'Given name' },
      { name: 'familyName', type: 'string', description: 'Family name' },
      { name: 'formatted', type: 'string', mutability: 'readOnly', description: 'givenName familyName' },
    ],
  },
  { name: 'displayName', type: 'string', description: 'The name shown in the console and the audit trail' },
  {
    name: 'emails',
    type: 'complex',
    multiValued: true,
    description: 'E-mail addresses (at most 10)',
    subAttributes: [
      { name: 'value', type: 'string', description: 'An e-mail address' },
      { name: 'type', type: 'string', description: 'work, home, other' },
      { name: 'primary', type: 'boolean', description: 'The primary address' },
    ],
  },
  { name: 'active', type: 'boolean', description: "false suspends the person's roles in this workspace and ends their sessions" },
];

const GROUP_ATTRIBUTES: Attribute[] = [
  { name: 'displayName', type: 'string', required: true, uniqueness: 'server', description: 'The group name that group roles name' },
  {
    name: 'members',
    type: 'complex',
    multiValued: true,
    description: 'Users of this directory',
    subAttributes: [
      { name: 'value', type: 'string', mutability: 'immutable', description: "A user's id" },
      { name: '$ref', type: 'reference', mutability: 'immutable', referenceTypes: ['User'], description: "The user's URI" },
      { name: 'display', type: 'string', mutability: 'readOnly', description: "The user's userName" },
    ],
  },
];

const SCHEMAS = [
  { id: USER_SCHEMA, name: 'User', description: 'User Account', attributes: USER_ATTRIBUTES },
  { id: GROUP_SCHEMA, name: 'Group', description: 'Group', attributes: GROUP_ATTRIBUTES },
];

/** RFC 7643 §7: the attributes this service provider stores (others are accepted and ignored). */
export function schemas(baseUrl: string): Record<string, unknown>[] {
  return SCHEMAS.map((schema) => ({
    schemas: [SCHEMA_SCHEMA],
    id: schema.id,
    name: schema.name,
    description: schema.description,
    attributes: schema.attributes.map(attribute),
    meta: { resourceType: 'Schema', location: `${baseUrl}/Schemas/${schema.id}` },
  }));
}

/** RFC 7644 §3.4.2: a list answer. */
export function listResponse(resources: unknown[], totalResults: number, startIndex: number): Record<string, unknown> {
  return { schemas: [LIST_RESPONSE_SCHEMA], totalResults, startIndex, itemsPerPage: resources.length, Resources: resources };
}
