/**
 * Sizes for `bench/layout.ts`: the files over a line count, and the longest functions. A
 * function is every function-like node the TypeScript compiler parses (declarations, methods,
 * accessors, constructors, arrow functions and function expressions); its length runs from its
 * first token (after any leading comment) to its closing line, so a function holds the lines of
 * the functions nested in it.
 */
import ts from 'typescript';
import { nameOf, nodesOf, type SourceFile } from './layout-sources.js';

export interface LongFile {
  path: string;
  lines: number;
}

export interface FunctionSize {
  /** `path:line` of its first token. */
  at: string;
  name: string;
  lines: number;
}

/** Files of more than `limit` lines, longest first (path order among equals). */
export function longFiles(files: readonly SourceFile[], limit: number): LongFile[] {
  return files
    .filter((file) => file.lines > limit)
    .map(({ path, lines }) => ({ path, lines }))
    .sort((a, b) => b.lines - a.lines || a.path.localeCompare(b.path));
}

/** The `count` longest functions, longest first (by place among equals). */
export function longestFunctions(files: readonly SourceFile[], count: number): FunctionSize[] {
  const sizes: FunctionSize[] = [];
  for (const file of files) {
    for (const node of nodesOf(file.ast)) {
      if (!ts.isFunctionLike(node) || !('body' in node) || !node.body) continue;
      const start = file.ast.getLineAndCharacterOfPosition(node.getStart(file.ast)).line;
      const end = file.ast.getLineAndCharacterOfPosition(node.getEnd()).line;
      sizes.push({
        at: `${file.path}:${start + 1}`,
        name: functionName(node),
        lines: end - start + 1,
      });
    }
  }
  return sizes
    .sort((a, b) => b.lines - a.lines || a.at.localeCompare(b.at, 'en', { numeric: true }))
    .slice(0, count);
}

/** The name a reader would look for: its own, or the variable, property or call it is given to. */
function functionName(node: ts.SignatureDeclaration): string {
  if (ts.isConstructorDeclaration(node)) return `${nameOf(node.parent) ?? 'class'} constructor`;
  const own = nameOf(node);
  if (own) return own;
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) {
    return nameOf(parent) ?? '(anonymous)';
  }
  if (ts.isCallExpression(parent)) {
    return `(argument of ${parent.expression.getText().split('\n')[0]?.slice(0, 40)})`;
  }
  return '(anonymous)';
}
