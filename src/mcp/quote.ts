/**
 * Values quoted back in MCP errors, cut short: an argument, a name or a URI can be as large as
 * the body (1 MiB), and an error that repeats it costs the client (and a model's context) that
 * much again. GraphQL errors are cut the same way (src/errors/use-error-hygiene.ts).
 */

/** Characters of a value an error quotes; the rest is counted, not shown. */
export const QUOTED_CHARACTERS = 40;

/** How deep and how many values `withValuesCut` looks at (graphql-js quotes 2 levels deep). */
const SCAN_DEPTH = 8;
const SCAN_VALUES = 10_000;

/** A value as JSON, cut to `QUOTED_CHARACTERS` with how many characters it had. */
export function quoted(value: unknown): string {
  if (typeof value === 'string') {
    const json = JSON.stringify(value);
    if (value.length <= QUOTED_CHARACTERS) return json;
    return `${JSON.stringify(value.slice(0, QUOTED_CHARACTERS)).slice(0, -1)}…" (${value.length} characters)`;
  }
  const json = JSON.stringify(value) ?? String(value);
  if (json.length <= QUOTED_CHARACTERS) return json;
  return `${json.slice(0, QUOTED_CHARACTERS)}… (${json.length} characters)`;
}

/**
 * `message` with every long string of `values` (keys included) cut where it is quoted, as JSON
 * or as it is: graphql-js and the scalars quote a refused value whole, often twice.
 */
export function withValuesCut(message: string, values: unknown): string {
  const long = new Set<string>();
  collect(values, long, 0, { left: SCAN_VALUES });
  let text = message;
  // Longest first: a shorter one may be part of a longer one.
  for (const value of [...long].sort((a, b) => b.length - a.length))
    text = text
      .split(JSON.stringify(value))
      .join(quoted(value))
      .split(value)
      .join(`${value.slice(0, QUOTED_CHARACTERS)}… (${value.length} characters)`);
  return text;
}

function collect(value: unknown, found: Set<string>, depth: number, budget: { left: number }) {
  if (budget.left-- <= 0) return;
  if (typeof value === 'string') {
    if (value.length > QUOTED_CHARACTERS) found.add(value);
    return;
  }
  if (value === null || typeof value !== 'object' || depth >= SCAN_DEPTH) return;
  for (const [key, item] of Object.entries(value)) {
    collect(key, found, depth + 1, budget);
    collect(item, found, depth + 1, budget);
  }
}
