/** What the server said (an error or a notice), kept as the tester prints it. */
import { oneLine } from '../errors.ts';
import type { ServerMessage } from './permutation.ts';

export function serverMessageOf(error: unknown): ServerMessage {
  if (typeof error === 'object' && error !== null && 'message' in error) {
    const { severity, message, detail, hint } = error as Partial<Record<string, unknown>>;
    return {
      severity: typeof severity === 'string' ? severity : 'ERROR',
      message: String(message),
      ...(typeof detail === 'string' ? { detail } : {}),
      ...(typeof hint === 'string' ? { hint } : {}),
    };
  }
  return { severity: 'ERROR', message: oneLine(error) };
}
