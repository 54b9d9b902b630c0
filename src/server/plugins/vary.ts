/**
 * Adds `names` to the response's one `Vary` header, keeping what other plugins put there (CORS
 * puts `Origin`, compression `Accept-Encoding`, HTTP caching `Authorization, Accept`). Always
 * through the lower-case name: Headers built from a record keep the record's spelling, and a
 * `set` under another spelling then adds a second line instead of replacing the first.
 */
export function addVary(headers: Headers, ...names: string[]): void {
  const present = (headers.get('vary') ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const lower = new Set(present.map((name) => name.toLowerCase()));
  const added = names.filter((name) => !lower.has(name.toLowerCase()));
  if (added.length === 0 && present.length > 0) return;
  headers.delete('vary');
  headers.set('vary', [...present, ...added].join(', '));
}
