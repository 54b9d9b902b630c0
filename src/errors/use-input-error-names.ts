import { type ASTNode, type DocumentNode, Kind, visit } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { copyError } from './codes.js';

/** The argument or input field a literal value belongs to, as a path such as `input.amount`. */
function argumentPath(document: DocumentNode, target: ASTNode): string | null {
  let found: string | null = null;
  visit(document, {
    enter(node, _key, parent, _path, ancestors) {
      if (found !== null) return false;
      if (node !== target) return undefined;
      const names: string[] = [];
      // graphql-js leaves the direct parent out of `ancestors`.
      for (const ancestor of [...ancestors, parent]) {
        if (!ancestor || Array.isArray(ancestor)) continue;
        const astNode = ancestor as ASTNode;
        if (astNode.kind === Kind.ARGUMENT || astNode.kind === Kind.OBJECT_FIELD)
          names.push(astNode.name.value);
      }
      found = names.length > 0 ? names.join('.') : null;
      return false;
    },
  });
  return found;
}

/**
 * graphql-js reports a literal a scalar refused as `Expected value of type "Date", found ...`,
 * without saying which argument held it. This names it, so every BAD_USER_INPUT message points
 * at the field to fix (variables are already named by graphql-js).
 */
export function useInputErrorNames(): Plugin {
  return {
    onValidate({ params }) {
      return ({ result, setResult }) => {
        if (result.length === 0) return;
        setResult(
          result.map((error) => {
            if (error.extensions?.code !== 'BAD_USER_INPUT' || !error.nodes?.[0]) return error;
            const path = argumentPath(params.documentAST, error.nodes[0]);
            if (!path) return error;
            return copyError(error, {
              message: `Argument "${path}": ${error.message}`,
              originalError: error.originalError,
              extensions: { ...error.extensions, field: path },
            });
          }),
        );
      };
    },
  };
}
