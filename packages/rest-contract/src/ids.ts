/**
 * Plan ids as the REST interface takes them, shared by the gateway and the sandbox so both read
 * an id the same way. Written by hand: the description names the aliases only in prose and says
 * `format: uuid` without a pattern.
 */

/** Plan ids the upstream resolves itself, at the time it takes the request. */
export const PLAN_ALIASES: ReadonlySet<string> = new Set(['last-used', 'default']);

/** A UUID in any letter case (REST ids are lower-case, clients may send either). */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
