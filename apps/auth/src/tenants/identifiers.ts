/** A tenant id: a DNS label (so it can be a host name label and never contains `_` or `|`). */
export const TENANT_ID = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** A user name as typed at our own login forms (no `|`, which separates tenant and user in account ids). */
export const USERNAME = /^[A-Za-z0-9._@-]{1,64}$/;
