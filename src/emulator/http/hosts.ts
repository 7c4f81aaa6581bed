/** An address that binds every interface of the machine: `0.0.0.0` or `::` (bracketed or not). */
export function isWildcardHost(host: string): boolean {
  const bare = host.trim().replace(/^\[(.*)\]$/, '$1');
  return bare === '0.0.0.0' || bare === '::';
}
