// The stdio transport toolhost reaches a local MCP server over (the MCP
// specification's "stdio" transport, as the SDK's StdioClientTransport
// speaks it): a child process, one JSON-RPC message per line on its stdin and
// stdout, its stderr piped for the source's debug log. Toolhost owns it,
// behind the SDK's public `Transport` interface, so that its line reader
// (stdio-lines.ts, with the page cache) is its own by construction: the
// SDK's transport has no hook for a reader. Checked against the SDK's Client
// and a published server (test/mcp-source/stdio-client.test.ts).
//
// Closing follows the SDK's transport: stdin is ended, then SIGTERM after
// 2 s, then SIGKILL after 2 s more, for a server that does not exit.
import { spawn, type ChildProcess } from 'node:child_process';
import { PassThrough } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { JsonLineReader } from './stdio-lines.js';

/** How long close() waits for the child at each step (stdin ended, SIGTERM) before the next. */
const CLOSE_STEP_MS = 2000;

export interface StdioServer {
  command: string;
  args: string[];
  /** The child's whole environment. */
  env: Record<string, string>;
  cwd: string;
}

export class StdioClientTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** The child's stderr, there before start() so nothing it writes early is lost. */
  readonly stderr = new PassThrough();
  private child: ChildProcess | undefined;

  /** `lines` frames the child's stdout (a CachingLineReader for the page cache). */
  constructor(
    private readonly server: StdioServer,
    private readonly lines: JsonLineReader = new JsonLineReader(),
  ) {}

  /** The child's pid once started, else null. */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /** Spawns the server; resolves once it runs, rejects when it cannot be spawned. */
  start(): Promise<void> {
    if (this.child) return Promise.reject(new Error('the stdio transport is already started'));
    return new Promise((resolve, reject) => {
      const child = spawn(this.server.command, this.server.args, {
        env: this.server.env,
        cwd: this.server.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        shell: false,
        windowsHide: true,
      });
      this.child = child;
      child.on('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on('spawn', () => resolve());
      child.on('close', () => {
        this.child = undefined;
        this.onclose?.();
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => this.read(chunk));
      child.stdout?.on('error', (error) => this.onerror?.(error));
      child.stderr?.pipe(this.stderr);
    });
  }

  /**
   * A line too long for the reader's bound ends the connection; a line that
   * is no message (or a handler that throws) is an error, and reading goes on.
   */
  private read(chunk: Buffer): void {
    try {
      this.lines.append(chunk);
    } catch (error) {
      this.onerror?.(error as Error);
      this.close().catch(() => undefined);
      return;
    }
    for (;;) {
      try {
        const message = this.lines.readMessage();
        if (message === null) return;
        this.onmessage?.(message);
      } catch (error) {
        this.onerror?.(error as Error);
      }
    }
  }

  /** Writes one message as one line; resolves once the pipe takes more. */
  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin) return Promise.reject(new Error('Not connected'));
    this.lines.sent(message);
    return new Promise((resolve) => {
      if (stdin.write(`${JSON.stringify(message)}\n`)) resolve();
      else stdin.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (child) {
      const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
      const step = () => Promise.race([closed, new Promise<void>((resolve) => setTimeout(resolve, CLOSE_STEP_MS).unref())]);
      try {
        child.stdin?.end();
      } catch {
        // A pipe already broken: the signals below still end the child.
      }
      await step();
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await step();
      }
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    this.lines.clear();
  }
}
