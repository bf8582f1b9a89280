// Protocol version negotiation (docs/contract.md "Endpoints"): every response
// carries `OpenWOP-Version: 2.0`; a request naming another major is refused.
export const PROTOCOL_VERSION = '2.0';
export const PROTOCOL_HEADER = 'openwop-version';
export const SERVED_MAJORS = new Set([2]);

/** True when a request's OpenWOP-Version header (if any) names a major this host serves. */
export function isServedVersion(header: string | undefined): boolean {
  if (header === undefined) return true;
  const m = /^\s*v?(\d+)(?:\.\d+){0,2}\s*$/i.exec(header);
  return m !== null && SERVED_MAJORS.has(Number(m[1]));
}

/** Who answers: discovery's `implementation` and the MCP server info. */
export const IMPLEMENTATION = { name: 'toolhost', version: '0.1.0' } as const;
