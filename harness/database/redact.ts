/**
 * How a server's URL is shown in every line that names it: without its secrets. Apart from the connections
 * (database.ts), so that the command line checks a URL it is given without loading PostgreSQL's client.
 */

/**
 * The connection parameters libpq takes a secret from: those its PQconninfoOptions show as a password
 * ("*") and the SCRAM keys it keeps out of sight ("D"). node-pg reads every query parameter, so a URL can
 * carry each of them.
 */
const SECRET_PARAMETERS = new Set([
  'password',
  'sslpassword',
  'oauth_client_secret',
  'scram_client_key',
  'scram_server_key',
]);

/** A query string with the value of every secret parameter masked; the rest exactly as written. */
function maskedQuery(search: string): string {
  if (search === '') return '';
  const pairs = search.slice(1).split('&');
  return `?${pairs
    .map((pair) => {
      // Named as the drivers read it (percent-decoded, as URLSearchParams does), in any letter case.
      const name = [...new URLSearchParams(pair).keys()][0] ?? '';
      return pair.includes('=') && SECRET_PARAMETERS.has(name.toLowerCase())
        ? `${pair.slice(0, pair.indexOf('='))}=***`
        : pair;
    })
    .join('&')}`;
}

/** A URL as every message shows it: its password and every secret query parameter masked. */
export function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    parsed.search = maskedQuery(parsed.search);
    return parsed.toString();
  } catch {
    return '<unparsable url>';
  }
}
