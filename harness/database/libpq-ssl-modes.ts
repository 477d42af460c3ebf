import { Errors } from '../errors.ts';

/**
 * node-postgres reads `sslmode=prefer|require|verify-ca` as `verify-full` and warns, over ten lines on
 * stderr, that its next major version will change that. A PostgreSQL user who writes `sslmode=require`
 * means libpq's meaning (encrypt, do not check the certificate), so every URL the suite is given asks the
 * driver for libpq's semantics unless it already says which it wants. As in libpq, `verify-ca` needs the
 * CA (`sslrootcert`); `verify-full` is the same either way.
 */
const AMBIGUOUS_SSL_MODES = new Set(['prefer', 'require', 'verify-ca']);

export function withLibpqSslModes(url: string): string {
  const parsed = new URL(url);
  const mode = parsed.searchParams.get('sslmode');
  if (!mode || !AMBIGUOUS_SSL_MODES.has(mode) || parsed.searchParams.has('uselibpqcompat')) return url;
  if (mode === 'verify-ca' && !parsed.searchParams.has('sslrootcert')) {
    throw Errors.badInput(
      'sslmode=verify-ca needs the CA as sslrootcert=FILE, as in libpq (or use verify-full)',
    );
  }
  const hash = url.indexOf('#');
  const [head, tail] = hash < 0 ? [url, ''] : [url.slice(0, hash), url.slice(hash)];
  return `${head}${parsed.search ? '&' : '?'}uselibpqcompat=true${tail}`;
}
