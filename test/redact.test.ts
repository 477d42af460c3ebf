/**
 * Every line that names a server goes through `redact`: the userinfo password and every query parameter
 * libpq (and node-pg, which reads every query parameter) takes a secret from are masked, whatever their
 * spelling in the URL; everything else stays as the user wrote it, so the line still says which server.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withLibpqSslModes } from '../harness/database/libpq-ssl-modes.ts';
import { redact } from '../harness/database/redact.ts';

describe('redact', () => {
  it.each([
    ['postgresql://u:hunter2@h:5432/db', 'postgresql://u:***@h:5432/db'],
    ['postgres://u:hunter2@[::1]:5432/db', 'postgres://u:***@[::1]:5432/db'],
    ['postgresql://u:p%40ss@h/db', 'postgresql://u:***@h/db'],
    ['postgresql://u:p@ss@h/db', 'postgresql://u:***@h/db'],
    ['postgresql://h/db?password=hunter2', 'postgresql://h/db?password=***'],
    [
      'postgresql://h/db?sslpassword=hunter2&sslmode=require',
      'postgresql://h/db?sslpassword=***&sslmode=require',
    ],
    ['postgresql://h/db?oauth_client_secret=hunter2', 'postgresql://h/db?oauth_client_secret=***'],
    ['postgresql://h/db?scram_client_key=aGk%3D', 'postgresql://h/db?scram_client_key=***'],
    ['postgresql://h/db?scram_server_key=aGk%3D', 'postgresql://h/db?scram_server_key=***'],
    ['postgresql://h/db?pass%77ord=hunter2', 'postgresql://h/db?pass%77ord=***'],
    ['postgresql://h/db?PassWord=hunter2', 'postgresql://h/db?PassWord=***'],
    ['postgresql://h/db?password=one1&password=two2', 'postgresql://h/db?password=***&password=***'],
    ['postgresql://h/db?password=a=b&c', 'postgresql://h/db?password=***&c'],
    ['postgresql://h/db?password=hun%26ter2', 'postgresql://h/db?password=***'],
    ['postgresql://h/db?password=hun+ter2', 'postgresql://h/db?password=***'],
    ['postgresql://u:one1@h/db?sslpassword=two2', 'postgresql://u:***@h/db?sslpassword=***'],
    [
      'postgresql://h/db?application_name=app&password=hunter2#x',
      'postgresql://h/db?application_name=app&password=***#x',
    ],
    [
      'postgresql://h/db?sslmode=require&options=-c%20x%3D1',
      'postgresql://h/db?sslmode=require&options=-c%20x%3D1',
    ],
    ['postgresql://u@h/db?passfile=/p&password', 'postgresql://u@h/db?passfile=/p&password'],
    ['mysql://u:hunter2@h/db?password=hunter3', 'mysql://u:***@h/db?password=***'],
    ['postgresql://u:hunter2@h:99999/db', '<unparsable url>'],
    ['localhost:5432', 'localhost:5432'],
  ])('%s → %s', (url, shown) => {
    expect(redact(url)).toBe(shown);
  });

  it('shows no secret of a generated URL, in any spelling, and keeps its other parameters', () => {
    const secretName = fc
      .constantFrom('password', 'sslpassword', 'oauth_client_secret', 'scram_client_key', 'scram_server_key')
      .chain((name) => fc.constantFrom(name, name.toUpperCase(), name.replace('s', '%73')));
    const secret = fc.string({ minLength: 1, maxLength: 12 }).map((text) => `Zq9${text}`);
    const parameter = fc.oneof(
      fc
        .tuple(secretName, secret)
        .map(([name, value]) => ({ text: `${name}=${encodeURIComponent(value)}`, value })),
      fc
        .constantFrom('sslmode=require', 'application_name=app', 'connect_timeout=5')
        .map((text) => ({ text })),
    );
    fc.assert(
      fc.property(fc.option(secret), fc.array(parameter, { maxLength: 5 }), (password, parameters) => {
        const userinfo = password === null ? 'u' : `u:${encodeURIComponent(password)}`;
        const query = parameters.map((p) => p.text).join('&');
        const shown = redact(`postgresql://${userinfo}@db.example:5432/app${query ? `?${query}` : ''}`);
        expect(shown.startsWith(`postgresql://u${password === null ? '' : ':***'}@db.example:5432/app`)).toBe(
          true,
        );
        for (const value of [password, ...parameters.map((p) => ('value' in p ? p.value : null))]) {
          if (value === null || value === undefined) continue;
          expect(shown).not.toContain(value);
          expect(shown).not.toContain(encodeURIComponent(value));
        }
        for (const p of parameters) if (!('value' in p)) expect(shown).toContain(p.text);
      }),
    );
  });
});

describe('withLibpqSslModes', () => {
  it.each([
    ['postgresql://h/db?sslmode=require', 'postgresql://h/db?sslmode=require&uselibpqcompat=true'],
    ['postgresql://h/db?sslmode=prefer', 'postgresql://h/db?sslmode=prefer&uselibpqcompat=true'],
    ['postgresql://h/db?sslmode=require#x', 'postgresql://h/db?sslmode=require&uselibpqcompat=true#x'],
  ])('asks the driver for what libpq means by %s', (url, asked) => {
    expect(withLibpqSslModes(url)).toBe(asked);
  });

  it('leaves alone a URL that names no ambiguous mode or already chose', () => {
    for (const url of [
      'postgresql://h/db',
      'postgresql://h/db?sslmode=disable',
      'postgresql://h/db?sslmode=verify-full',
      'postgresql://h/db?sslmode=require&uselibpqcompat=false',
    ]) {
      expect(withLibpqSslModes(url)).toBe(url);
    }
  });

  it('refuses verify-ca without the CA in one line, as libpq does', () => {
    expect(() => withLibpqSslModes('postgresql://h/db?sslmode=verify-ca')).toThrow(
      /needs the CA as sslrootcert/,
    );
  });
});
