/**
 * Parsing within bounds. graphql-js's parser descends recursively, one call chain per bracket
 * level: a list literal nested 2,400 deep (under 5,000 tokens) overflows the stack. Its own
 * `maxTokens` does not count comments, so a document can carry any amount of them. So the text is
 * first scanned with graphql-js's lexer, a loop that never recurses, counting every token,
 * comments included, and the brackets open at once; only a text within both bounds is parsed.
 */
import { type DocumentNode, GraphQLError, Lexer, parse, Source, TokenKind } from 'graphql';
import { gatewayError } from '../errors/codes.js';

export interface ParseBounds {
  /** Lexical tokens, comments included. */
  readonly tokens: number;
  /** `{`, `[` and `(` open at once. */
  readonly nesting: number;
}

export type BoundedParse =
  | { readonly ok: true; readonly document: DocumentNode; readonly tokens: number }
  | { readonly ok: false; readonly error: GraphQLError };

/**
 * Heap a parsed document holds per token (its node, location and lexer token), measured on the
 * dashboard query: about 390 bytes. Used to size cached documents.
 */
export const HEAP_BYTES_PER_TOKEN = 400;

const OPENING = new Set<TokenKind>([TokenKind.BRACE_L, TokenKind.BRACKET_L, TokenKind.PAREN_L]);
const CLOSING = new Set<TokenKind>([TokenKind.BRACE_R, TokenKind.BRACKET_R, TokenKind.PAREN_R]);

/** The document of `text`, or the refusal of a text over a bound or not GraphQL at all. */
export function parseWithin(text: string, bounds: ParseBounds): BoundedParse {
  const source = new Source(text);
  try {
    const scanned = scan(source, bounds);
    if (!scanned.ok) return scanned;
    return { ok: true, document: parse(source), tokens: scanned.tokens };
  } catch (error) {
    if (error instanceof GraphQLError) return { ok: false, error: parseFailed(error) };
    throw error;
  }
}

// Private: counts tokens (comments too) and open brackets without building anything.
function scan(
  source: Source,
  bounds: ParseBounds,
): { ok: true; tokens: number } | { ok: false; error: GraphQLError } {
  const lexer = new Lexer(source);
  let previous = lexer.token;
  let tokens = 0;
  let open = 0;
  for (;;) {
    // `advance` skips comments but links them between the previous token and this one.
    const token = lexer.advance();
    for (let between = previous.next; between && between !== token; between = between.next)
      tokens += 1;
    if (token.kind === TokenKind.EOF) break;
    tokens += 1;
    if (tokens > bounds.tokens) return { ok: false, error: tooManyTokens(bounds.tokens) };
    if (OPENING.has(token.kind)) {
      open += 1;
      if (open > bounds.nesting) return { ok: false, error: nestedTooDeep(bounds.nesting) };
    } else if (CLOSING.has(token.kind)) open -= 1;
    previous = token;
  }
  if (tokens > bounds.tokens) return { ok: false, error: tooManyTokens(bounds.tokens) };
  return { ok: true, tokens };
}

function tooManyTokens(max: number): GraphQLError {
  return gatewayError(
    `The document has more than ${max} tokens (comments count too). Send a smaller document.`,
    'OPERATION_TOO_COMPLEX',
    { extensions: { limit: 'tokens', max } },
  );
}

/** The refusal of a document (or variables) nested deeper than `max` levels. */
export function nestedTooDeep(
  max: number,
  what = 'The document opens brackets and braces',
): GraphQLError {
  return gatewayError(`${what} more than ${max} levels deep.`, 'OPERATION_TOO_COMPLEX', {
    extensions: { limit: 'nesting', max },
  });
}

// Private: graphql-js's syntax error, with the code clients look for.
function parseFailed(error: GraphQLError): GraphQLError {
  return gatewayError(error.message, 'GRAPHQL_PARSE_FAILED', {
    ...(error.source ? { source: error.source } : {}),
    ...(error.positions ? { positions: error.positions } : {}),
  });
}
