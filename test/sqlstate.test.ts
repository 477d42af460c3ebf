/**
 * sqlstateOf: the server's SQLSTATE, and a lost connection as class 08 whatever words or code the driver
 * or the socket reports it with — over a Unix socket a write to a closed server end fails with EPIPE,
 * whose code has a SQLSTATE's shape.
 */
import { describe, expect, it } from 'vitest';
import { SQLSTATE, sqlstateOf } from '../strategies/support/sqlstate.ts';

const systemError = (code: string, syscall: string) =>
  Object.assign(new Error(`${syscall} ${code}`), { code, errno: -32, syscall });

describe('sqlstateOf', () => {
  it("takes the server's SQLSTATE from a PostgreSQL error", () => {
    const error = Object.assign(new Error('duplicate key'), { code: '23505', severity: 'ERROR' });
    expect(sqlstateOf(error)).toBe(SQLSTATE.uniqueViolation);
  });

  it('calls a lost connection 08006, a socket error with a five-capital code (EPIPE) included', () => {
    expect(sqlstateOf(systemError('EPIPE', 'write'))).toBe(SQLSTATE.connectionFailure);
    expect(sqlstateOf(systemError('ECONNRESET', 'read'))).toBe(SQLSTATE.connectionFailure);
    expect(sqlstateOf(new Error('Connection terminated unexpectedly'))).toBe(SQLSTATE.connectionFailure);
  });

  it('gives no SQLSTATE for any other error', () => {
    expect(sqlstateOf(new Error('boom'))).toBeUndefined();
    expect(sqlstateOf(systemError('EACCES', 'open'))).toBeUndefined();
  });
});
