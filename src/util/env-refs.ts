// `${VAR}` references in config strings (upstream headers, env, args), so
// secrets stay out of the config file. Resolved only when a connection is
// made; the resolved value is never logged or put in a descriptor.

const REF = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

export class MissingEnvError extends Error {}

/** Replaces each `${VAR}`; a missing variable is an error naming the variable, never a value. */
export function resolveEnvRefs(value: string, env: NodeJS.ProcessEnv): string {
  return value.replace(REF, (_m, name: string) => {
    const v = env[name];
    if (v === undefined) throw new MissingEnvError(`environment variable ${name} is not set`);
    return v;
  });
}

export function resolveEnvRefsInRecord(record: Record<string, string> | undefined, env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(record ?? {})) out[k] = resolveEnvRefs(v, env);
  return out;
}

/** The variable names a string refers to, for redaction and validation. */
export function envRefNames(value: string): string[] {
  return [...value.matchAll(REF)].map((m) => m[1]);
}
