import { MAX_PATCH_OPS } from './scim-patch';
import { MAX_PAGE } from './scim-page';
import { GROUP_SCHEMA } from './scim-groups';
import { USER_SCHEMA } from './scim-user-resource';

/** The request body limit of /scim routes (a full Group PUT with the member cap fits). */
export const SCIM_MAX_BODY_BYTES = 256 * 1024;

const SCHEMA = (id: string) => ({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:Schema'], id });
const attr = (name: string, type: string, extra: Record<string, unknown> = {}) => ({
  name,
  type,
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...extra,
});

/** RFC 7644 §5: what this service provider supports. */
export function serviceProviderConfig(base: string) {
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
    documentationUri: 'https://github.com/switchboard/switchboard/blob/main/docs/enterprise.md',
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_PAGE },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'SCIM bearer token',
        description: `A tenant SCIM token created in the console (Settings → SCIM); max ${MAX_PATCH_OPS} PATCH operations per request`,
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
  };
}

export function resourceTypes(base: string) {
  return [
    {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
      id: 'User',
      name: 'User',
      endpoint: '/Users',
      schema: USER_SCHEMA,
      meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/User` },
    },
    {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'],
      id: 'Group',
      name: 'Group',
      endpoint: '/Groups',
      schema: GROUP_SCHEMA,
      meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/Group` },
    },
  ];
}

export function schemas() {
  return [
    {
      ...SCHEMA(USER_SCHEMA),
      name: 'User',
      attributes: [
        attr('userName', 'string', { required: true, uniqueness: 'server' }),
        attr('externalId', 'string', { caseExact: true }),
        attr('displayName', 'string'),
        attr('name', 'complex'),
        attr('emails', 'complex', { multiValued: true }),
        attr('active', 'boolean'),
        attr('groups', 'complex', { multiValued: true, mutability: 'readOnly' }),
      ],
    },
    {
      ...SCHEMA(GROUP_SCHEMA),
      name: 'Group',
      attributes: [
        attr('displayName', 'string', { required: true, uniqueness: 'server' }),
        attr('externalId', 'string', { caseExact: true }),
        attr('members', 'complex', { multiValued: true }),
      ],
    },
  ];
}
