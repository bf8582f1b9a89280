// The bridge's side towards toolhost: one SDK Client over Streamable HTTP,
// replaced by a fresh, re-initialized one whenever the host stops knowing it
// (a restart, a replica gone without a shared session key, a dropped GET
// stream). Reconnecting backs off from 250 ms to 5 s and never gives up while
// the host is only unreachable; a refused credential or an unsupported
// protocol version stops the loop until the next request tries again. The
// credential is read at every connect (so a rotated token file is picked up)
// and is sent only in the Authorization header.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ClientCapabilities, Implementation, ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { BridgeError, describeFailure, isFatal } from './errors.js';

export interface UpstreamOptions {
  url: URL;
  /** Reads the credential (undefined: send none); called at every connect. */
  credential: () => string | undefined;
  clientInfo: Implementation;
  /** Called for every Client made, before it connects: request and notification handlers go here. */
  wire: (client: Client, capabilities: ClientCapabilities) => void;
  /** After a reconnect (not the first connect): the session is new, the tool list may have changed. */
  onReconnected: () => void;
  /** A line for a person (stderr): what went wrong, what happens next. */
  onNotice: (line: string) => void;
  backoff?: { initialMs: number; maxMs: number };
}

interface Live {
  client: Client;
  transport: StreamableHTTPClientTransport;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

export class Upstream {
  private live: Live | undefined;
  private connecting: Promise<Live> | undefined;
  private failure: BridgeError | undefined;
  private capabilities: ClientCapabilities = {};
  private readonly stopped = new AbortController();
  private connectedOnce = false;

  constructor(private readonly options: UpstreamOptions) {}

  /** Connects once and reports the failure as a BridgeError (the start-up check). */
  async connect(capabilities: ClientCapabilities): Promise<{ serverCapabilities: ServerCapabilities | undefined; instructions: string | undefined; serverVersion: Implementation | undefined }> {
    this.capabilities = capabilities;
    const live = await this.open();
    this.adopt(live);
    return { serverCapabilities: live.client.getServerCapabilities(), instructions: live.client.getInstructions(), serverVersion: live.client.getServerVersion() };
  }

  /** The session to the host is re-made with these client capabilities (those of the client behind the bridge). */
  async recapabilize(capabilities: ClientCapabilities): Promise<void> {
    if (JSON.stringify(capabilities) === JSON.stringify(this.capabilities) && this.live) return;
    this.capabilities = capabilities;
    const old = this.live;
    this.live = undefined;
    if (old) await this.retire(old, true);
    this.adopt(await this.reconnecting(), false);
  }

  /** The current session, waiting for a reconnect in progress; a fatal failure is thrown (and the next call tries again). */
  async client(signal?: AbortSignal): Promise<Client> {
    if (this.live) return this.live.client;
    if (this.failure && !this.connecting) {
      // The last attempt was refused for good: say so, and let the next request try afresh (a token file may have been fixed).
      const failure = this.failure;
      this.failure = undefined;
      throw failure;
    }
    const pending = this.connecting ?? this.startReconnect();
    const aborted = new Promise<never>((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason), { once: true }));
    return (await Promise.race([pending, aborted])).client;
  }

  /** Says this client's session is gone (a request found it unknown or the host unreachable); a reconnect starts once. */
  lost(client: Client, why: string): void {
    if (this.live?.client !== client) return;
    const old = this.live;
    this.live = undefined;
    this.options.onNotice(`lost the session to ${this.where()} (${why}); reconnecting`);
    void this.retire(old, false);
    this.startReconnect();
  }

  async close(): Promise<void> {
    this.stopped.abort();
    const old = this.live;
    this.live = undefined;
    if (old) await this.retire(old, true);
  }

  private where(): string {
    return `${this.options.url.origin}${this.options.url.pathname}`;
  }

  private adopt(live: Live, announce = true): void {
    this.live = live;
    this.failure = undefined;
    if (this.connectedOnce && announce) this.options.onReconnected();
    this.connectedOnce = true;
  }

  private startReconnect(): Promise<Live> {
    if (this.connecting) return this.connecting;
    const attempt = this.reconnecting().then(
      (live) => {
        this.connecting = undefined;
        this.adopt(live);
        this.options.onNotice(`reconnected to ${this.where()}`);
        return live;
      },
      (err: unknown) => {
        this.connecting = undefined;
        this.failure = err instanceof BridgeError ? err : describeFailure(err, this.where());
        this.options.onNotice(this.failure.message);
        throw this.failure;
      },
    );
    attempt.catch(() => undefined);
    this.connecting = attempt;
    return attempt;
  }

  /** Tries until connected; gives up only on a fatal failure (refused credential, unsupported version) or when closed. */
  private async reconnecting(): Promise<Live> {
    const { initialMs, maxMs } = this.options.backoff ?? { initialMs: 250, maxMs: 5000 };
    for (let delay = initialMs; ; delay = Math.min(maxMs, delay * 2)) {
      if (this.stopped.signal.aborted) throw new BridgeError('the bridge is closing', 'closing');
      try {
        return await this.open();
      } catch (err) {
        if (!(err instanceof BridgeError) || isFatal(err)) throw err;
        await sleep(delay, this.stopped.signal);
      }
    }
  }

  /** One SDK Client, initialized; its GET stream's loss (no retries of the SDK's own) marks the session lost. */
  private async open(): Promise<Live> {
    const token = this.options.credential();
    const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
    const transport = new StreamableHTTPClientTransport(this.options.url, {
      requestInit: { headers },
      reconnectionOptions: { initialReconnectionDelay: 100, maxReconnectionDelay: 100, reconnectionDelayGrowFactor: 1, maxRetries: 0 },
    });
    const client = new Client(this.options.clientInfo, { capabilities: this.capabilities });
    this.options.wire(client, this.capabilities);
    try {
      await client.connect(transport);
    } catch (err) {
      await client.close().catch(() => undefined);
      throw describeFailure(err, this.where(), token);
    }
    const live = { client, transport };
    // The SDK reports a GET stream it could not keep (retries set to none) through onerror: the host went away or forgot the session.
    client.onerror = (err) => {
      if (/Maximum reconnection attempts|SSE stream disconnected|Failed to open SSE stream/.test(err.message)) this.lost(client, 'its event stream ended');
    };
    return live;
  }

  private async retire(live: Live, endSession: boolean): Promise<void> {
    live.client.onerror = undefined;
    if (endSession) await live.transport.terminateSession().catch(() => undefined);
    await live.client.close().catch(() => undefined);
  }
}
