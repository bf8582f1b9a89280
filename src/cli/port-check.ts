// `toolhost serve` refuses a port that is already taken before it starts any
// source: spawning MCP children and reading upstreams only to fail at
// listen() wastes seconds and leaves a stack trace where one line will do.
import { createServer } from 'node:net';

export class PortInUse extends Error {}

/** Resolves when host:port can be bound right now; rejects with PortInUse (or the bind error) when not. */
export async function checkPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') reject(new PortInUse(`port ${port} is in use; pass --port or set PORT`));
      else if (err.code === 'EACCES') reject(new PortInUse(`port ${port} needs privileges on ${host}; pass --port or set PORT`));
      else if (err.code === 'EADDRNOTAVAIL') reject(new PortInUse(`address ${host} is not available on this machine; pass --host or set HOST`));
      else reject(err);
    });
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}
