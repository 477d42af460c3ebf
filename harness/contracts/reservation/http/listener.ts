/**
 * The service's HTTP listener on 127.0.0.1, bound before anything else starts: a port that is taken (or
 * not this user's to take) is refused in one line, exit 2, before a database server, a run database or a
 * state file exists to be cleaned up.
 */
import { createServer, type Server } from 'node:http';
import { Errors, oneLine } from '../../../errors.ts';

function why(error: unknown, where: string): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') {
    return `${where} is in use (another serve?): give another --port, or 0 for any free one`;
  }
  if (code === 'EACCES') return `${where} is not this user's to listen on (ports below 1024 need privileges)`;
  return `cannot listen on ${where}: ${oneLine(error)}`;
}

export async function listenOn(port: number): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((error: unknown) => {
    throw Errors.badInput(`--port ${port}: ${why(error, `127.0.0.1:${port}`)}`);
  });
  return server;
}

/** The port the listener got (the one asked for, or the free one `--port 0` found). */
export function portOf(server: Server): number {
  const address = server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

export function closeListener(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
