// toolId globs, as used by tenant allowlists and policy rules: `*` matches any
// run of characters (including `:` `.` `/`, since toolIds are not paths, which
// is why no path-glob library is used), `?` exactly one. Nothing else is special.

export const GLOB_PATTERN = /^[A-Za-z0-9_.:/*?-]{1,256}$/;
export const GLOB_PATTERN_SOURCE = GLOB_PATTERN.source;

function globToRegexSource(glob: string): string {
  let out = '';
  for (const ch of glob) {
    if (ch === '*') out += '.*';
    else if (ch === '?') out += '.';
    else out += ch.replace(/[.\\/+^$(){}[\]|-]/g, '\\$&');
  }
  return out;
}

/** One compiled matcher for a list of globs (a tenant allowlist, a rule). */
export function compileGlobs(globs: readonly string[]): (toolId: string) => boolean {
  if (globs.length === 0) return () => false;
  if (globs.includes('*')) return () => true;
  const re = new RegExp(`^(?:${globs.map(globToRegexSource).join('|')})$`, 's');
  return (toolId) => re.test(toolId);
}
