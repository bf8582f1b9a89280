// What a call's own upstream credential looks like to a source (MCP server
// over HTTP, connector): headers (and, for a connector, query parameters) the
// host resolved for this caller alone. The upstream layer decides what they
// hold (a principal's stored secret, identity headers, a token); a source
// only sends them, keys its per-caller connections by `key`, and reports a
// credential the upstream refused by throwing UpstreamCredentialRefused.
export interface UpstreamCredential {
  /** Names the caller (tenant and principal); one connection per owner. */
  readonly owner: string;
  /** Names this caller and this credential value (a hash, never the value): a new value gets a new connection. */
  readonly key: string;
  /** Headers to send; replace the source's configured headers of the same name. */
  readonly headers: Readonly<Record<string, string>>;
  /** Query parameters to add (connectors only). */
  readonly query?: readonly (readonly [string, string])[];
  /** True when the source's shared credential (connector `auth`) must not be sent as well. */
  readonly replacesShared: boolean;
  /** Every value that must never appear in a result, a log line or an error. */
  readonly secrets: readonly string[];
}

/** The upstream answered 401 to this caller's credential: the host asks the person to connect again. */
export class UpstreamCredentialRefused extends Error {
  constructor(readonly sourceId: string) {
    super(`${sourceId} refused the caller's credential`);
    this.name = 'UpstreamCredentialRefused';
  }
}
