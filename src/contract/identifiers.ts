// The shape of a tenant id, written once: the config's `tenants` keys, a
// principal's `tenant` (config and keys file) and the pack manifests' tenant
// lists must accept exactly the same ids, or a tenant valid in one place
// would be refused in another.
export const TENANT_ID_PATTERN = '^[a-z0-9][a-z0-9_-]{0,62}$';
