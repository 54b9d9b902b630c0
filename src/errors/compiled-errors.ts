import { type ASTNode, type DocumentNode, GraphQLError, getLocation, Kind, visit } from 'graphql';

/**
 * A compiled query's error (graphql-jit's) as graphql-js makes it: the same message, path, cause
 * and extensions, and the document's nodes it points at, from which graphql-js computes the
 * locations. The compiler's errors keep locations but no nodes and no empty `extensions`, and the
 * plugins after execution (masking, error codes, the operation report) read both.
 */
export function asExecutorError(error: GraphQLError, document: DocumentNode): GraphQLError {
  const nodes = error.locations?.map((at) => nodesAt(document).get(`${at.line}:${at.column}`));
  const found = nodes?.every((node) => node !== undefined) ? (nodes as ASTNode[]) : undefined;
  const made = new GraphQLError(error.message, {
    ...(found ? { nodes: found } : {}),
    path: error.path,
    originalError: error.originalError,
    ...(error.extensions ? { extensions: error.extensions } : {}),
  });
  // A location no node starts at (none known): kept as the compiler gave it.
  if (!found && error.locations) Object.assign(made, { locations: error.locations });
  return made;
}

const nodesByDocument = new WeakMap<DocumentNode, Map<string, ASTNode>>();

// Private: the document's nodes by where they start ("line:column"), fields first; built on the
// first error of a document, kept as long as the document.
function nodesAt(document: DocumentNode): Map<string, ASTNode> {
  let nodes = nodesByDocument.get(document);
  if (nodes) return nodes;
  const made = new Map<string, ASTNode>();
  const source = document.loc?.source;
  if (source) {
    visit(document, {
      enter(node) {
        if (!node.loc) return;
        const { line, column } = getLocation(source, node.loc.start);
        const key = `${line}:${column}`;
        // An error points at a field, or at a variable's definition; both start their nodes.
        if (!made.has(key) || node.kind === Kind.FIELD) made.set(key, node);
      },
    });
  }
  nodes = made;
  nodesByDocument.set(document, nodes);
  return nodes;
}
