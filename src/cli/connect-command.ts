// `toolhost connect`: reads where the credential is (an environment variable
// or a file, never the command line), starts the stdio bridge, and turns
// every failure into one line on stderr (stdout belongs to MCP).
import { readFileSync } from 'node:fs';
import { BridgeError } from './connect/errors.js';
import { startBridge } from './connect/bridge.js';

export interface ConnectFlags {
  url: string;
  tokenEnv?: string;
  tokenFile?: string;
}

const say = (line: string) => void process.stderr.write(`toolhost connect: ${line}\n`);

/** The credential reader, checked once now so that a missing variable or file is said before anything starts. */
function credentialReader(flags: ConnectFlags): () => string | undefined {
  if (flags.tokenEnv !== undefined && flags.tokenFile !== undefined) throw new BridgeError('give --token-env or --token-file, not both', 'refused');
  let read: () => string | undefined = () => undefined;
  if (flags.tokenEnv !== undefined) {
    const name = flags.tokenEnv;
    read = () => {
      const value = process.env[name];
      if (value === undefined || value === '') throw new BridgeError(`environment variable ${name} (--token-env) is not set`, 'refused');
      return value;
    };
  } else if (flags.tokenFile !== undefined) {
    const file = flags.tokenFile;
    read = () => {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (err) {
        throw new BridgeError(`cannot read the token file ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`, 'refused');
      }
      const value = text.trim();
      if (value === '') throw new BridgeError(`the token file ${file} is empty`, 'refused');
      return value;
    };
  }
  read();
  return read;
}

function parseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new BridgeError('--url is not a URL (e.g. http://127.0.0.1:8080/mcp)', 'not-mcp');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new BridgeError('--url must be an http:// or https:// URL of a toolhost /mcp endpoint', 'not-mcp');
  if (url.username !== '' || url.password !== '') throw new BridgeError('--url must not carry a user or password; use --token-env or --token-file', 'refused');
  return url;
}

export async function runConnect(flags: ConnectFlags, version: string): Promise<void> {
  let bridge;
  try {
    bridge = await startBridge({ url: parseUrl(flags.url), credential: credentialReader(flags), version, notice: say });
  } catch (err) {
    say(err instanceof BridgeError ? err.message : `cannot start: ${(err as Error).message?.split('\n')[0] ?? String(err)}`);
    process.exit(1);
  }
  const stop = () => void bridge.close().finally(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  await bridge.closed;
  process.exit(0);
}
