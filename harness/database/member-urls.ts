/**
 * A cluster's URL as libpq writes several hosts (`postgresql://user:pw@h1:p1,h2:p2/db`), taken apart and put
 * together as text, apart from the connections (member-connection.ts): the command line checks such a URL
 * without loading PostgreSQL's client.
 */
const SCHEME_AND_HOSTS = /^(postgres(?:ql)?:\/\/)([^@/?#]*@)?([^/?#]*)(.*)$/s;

/** Each member's own URL (one host each), in the order written; a URL of one host is its only member. */
export function memberUrls(url: string): string[] {
  const parts = SCHEME_AND_HOSTS.exec(url);
  if (!parts) return [url];
  const [, scheme = '', user = '', hosts = '', rest = ''] = parts;
  const list = hosts.split(',');
  return list.length > 1 ? list.map((host) => `${scheme}${user}${host}${rest}`) : [url];
}

/** The URL of several members (libpq's form): the first's credentials, path and query, every host. */
export function clusterUrl(members: readonly string[]): string {
  const first = members[0];
  if (!first) throw new Error('a cluster needs a member');
  const hosts = members.map((m) => SCHEME_AND_HOSTS.exec(m)?.[3] ?? '');
  return first.replace(SCHEME_AND_HOSTS, (_all, scheme, user = '', _host, rest) =>
    [scheme, user, hosts.join(','), rest].join(''),
  );
}

/** The same URL (of one member or several) naming another database. */
export function withDatabaseName(url: string, database: string): string {
  return url.replace(SCHEME_AND_HOSTS, (_all, scheme, user = '', hosts, rest: string) => {
    const query = rest.indexOf('?');
    return `${scheme}${user}${hosts}/${database}${query >= 0 ? rest.slice(query) : ''}`;
  });
}
