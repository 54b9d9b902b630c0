/**
 * The gateway's TypeScript sources as `bench/layout.ts` reads them: every `.ts` file under `src/`
 * of the tree it runs in, parsed by the TypeScript compiler (syntax only: nothing is resolved or
 * type-checked, so the same code reads any commit of the tree), in path order so that every
 * table it feeds comes out the same on every run.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';

export interface SourceFile {
  /** Relative to the tree's root, with `/` (`src/server/http-server.ts`). */
  readonly path: string;
  readonly lines: number;
  readonly ast: ts.SourceFile;
}

export function readSources(root: string, folder = 'src'): SourceFile[] {
  const files = readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts'))
    .map((name) =>
      relative(root, join(root, folder, name))
        .split(sep)
        .join('/'),
    )
    .sort();
  return files.map((path) => {
    const text = readFileSync(join(root, path), 'utf8');
    return {
      path,
      // A final newline ends the last line; it does not start another.
      lines: text.length === 0 ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0),
      ast: ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS),
    };
  });
}

/** The folder a file lives in, one level below `src` (`src/server`), or the file itself at the top. */
export function homeOf(path: string): string {
  const parts = path.split('/');
  return parts.length > 2 ? parts.slice(0, 2).join('/') : path;
}

/** Every node of a file, depth first, in source order. */
export function* nodesOf(node: ts.Node): Generator<ts.Node> {
  yield node;
  const children: ts.Node[] = [];
  ts.forEachChild(node, (child) => {
    children.push(child);
  });
  for (const child of children) yield* nodesOf(child);
}

/** The name a declaration is known by, where it has one that is an identifier or a string. */
export function nameOf(node: ts.Node): string | undefined {
  const name = (node as { name?: ts.Node }).name;
  if (name && (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isPrivateIdentifier(name)))
    return name.text;
  return undefined;
}
