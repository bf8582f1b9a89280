// Adding a hook to one route as it is registered (fastify's onRoute): the
// per-route hooks keep work off the routes that do not need it. A route's
// hook option may be absent, one function or a list.

export function appendHook<T>(existing: T | T[] | undefined, hook: T): T[] {
  return existing === undefined ? [hook] : Array.isArray(existing) ? [...existing, hook] : [existing, hook];
}

/** For hooks that must run before the route's own (the protocol gate, a request's span). */
export function prependHook<T>(existing: T | T[] | undefined, hook: T): T[] {
  return existing === undefined ? [hook] : Array.isArray(existing) ? [hook, ...existing] : [hook, existing];
}
