/**
 * errors-catalogue-is-the-only-code-list: the error catalogue (src/errors/catalogue.ts) is the one
 * list of `extensions.code` values. dependency-cruiser sees imports, not what a module declares,
 * so this reads the sources: no other module declares a union of codes of its own (as
 * `GatewayErrorCode` and `RefusalCode` once were), and every code written outside the catalogue
 * (an `extensions: { code }`, a comparison with `extensions.code`, a set of codes) is one of it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../../src/errors/catalogue.js';
import { ROOT } from '../cli/support/process.js';

const CATALOGUE = 'src/errors/catalogue.ts';
const CODES = new Set(Object.keys(ERROR_CATALOGUE));
/** How a code is spelt: what a code-shaped literal outside the catalogue must be one of. */
const CODE_SHAPE = /^[A-Z][A-Z0-9_]+$/;

/**
 * The folders below `src/errors` in the layers (their `layer-order` rule forbids importing it):
 * they cannot derive a type from the catalogue, so a union there may name codes, but only codes
 * of the catalogue (the replica's `StaleReason`).
 */
const BELOW_ERRORS: readonly string[] = (
  createRequire(import.meta.url)(join(ROOT, '.dependency-cruiser.cjs')) as {
    forbidden: { name: string; to: { path?: string | string[] } }[];
  }
).forbidden
  .filter((rule) => rule.name.startsWith('layer-order:'))
  .filter((rule) =>
    [rule.to.path ?? []].flat().some((path) => new RegExp(path).test('src/errors/')),
  )
  .map((rule) => `${rule.name.slice('layer-order:'.length)}/`);

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const parsed = sources('src')
  .filter((path) => path !== CATALOGUE)
  .map((path) =>
    ts.createSourceFile(path, readFileSync(join(ROOT, path), 'utf8'), ts.ScriptTarget.Latest, true),
  );

function visit(file: ts.SourceFile, found: (node: ts.Node) => string | undefined): string[] {
  const problems: string[] = [];
  const walk = (node: ts.Node) => {
    const problem = found(node);
    if (problem) {
      const { line } = file.getLineAndCharacterOfPosition(node.getStart(file));
      problems.push(`${file.fileName}:${line + 1}: ${problem}`);
    }
    ts.forEachChild(node, walk);
  };
  walk(file);
  return problems;
}

/** `x.extensions.code`, `x.extensions?.code`, `extensions.code`. */
function isExtensionsCode(node: ts.Expression): boolean {
  return (
    ts.isPropertyAccessExpression(node) &&
    node.name.text === 'code' &&
    ((ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === 'extensions') ||
      (ts.isIdentifier(node.expression) && node.expression.text === 'extensions'))
  );
}

/** Private: why a literal written as a code is not one, or undefined. */
function unknownCode(literal: ts.Node, where: string): string | undefined {
  if (!ts.isStringLiteral(literal) || CODES.has(literal.text)) return undefined;
  return `${JSON.stringify(literal.text)} ${where} is not a code of the catalogue`;
}

describe('errors-catalogue-is-the-only-code-list', () => {
  it('gives each code one line of meaning', () => {
    const entries = Object.entries(ERROR_CATALOGUE);
    expect(entries.length).toBeGreaterThan(25);
    const bad = entries
      .filter(
        ([code, { meaning }]) =>
          !CODE_SHAPE.test(code) || meaning.trim() === '' || /\n/.test(meaning),
      )
      .map(([code]) => code);
    expect(bad).toEqual([]);
  });

  it('reads every source file but the catalogue, and knows the layers below it', () => {
    expect(BELOW_ERRORS).toContain('src/replica/');
    expect(BELOW_ERRORS).not.toContain('src/errors/');
    expect(parsed.length).toBeGreaterThan(200);
    expect(parsed.map((file) => file.fileName)).toContain('src/errors/codes.ts');
  });

  it('no other module declares a union of codes of its own', () => {
    const problems = parsed.flatMap((file) =>
      visit(file, (node) => {
        if (!ts.isUnionTypeNode(node)) return undefined;
        const literals = node.types.flatMap((member) =>
          ts.isLiteralTypeNode(member) && ts.isStringLiteral(member.literal)
            ? [member.literal.text]
            : [],
        );
        const codes = literals.filter((text) => CODES.has(text));
        if (codes.length === 0 || literals.length !== node.types.length) return undefined;
        if (BELOW_ERRORS.some((folder) => file.fileName.startsWith(folder))) {
          const strays = literals.filter((text) => !CODES.has(text));
          return strays.length > 0
            ? `${strays.join(', ')} in a union of codes: not codes of the catalogue`
            : undefined;
        }
        return `a union of codes (${codes.join(', ')}): derive it from ErrorCode instead`;
      }),
    );
    expect(problems).toEqual([]);
  });

  it('every code written outside the catalogue is one of it', () => {
    const problems = parsed.flatMap((file) =>
      visit(file, (node) => {
        // `extensions: { code: 'X' }`
        if (
          ts.isPropertyAssignment(node) &&
          node.name.getText(file) === 'code' &&
          ts.isObjectLiteralExpression(node.parent) &&
          ts.isPropertyAssignment(node.parent.parent) &&
          node.parent.parent.name.getText(file) === 'extensions'
        )
          return unknownCode(node.initializer, 'as extensions.code');
        // `error.extensions.code === 'X'`
        if (
          ts.isBinaryExpression(node) &&
          [
            ts.SyntaxKind.EqualsEqualsEqualsToken,
            ts.SyntaxKind.ExclamationEqualsEqualsToken,
          ].includes(node.operatorToken.kind)
        ) {
          if (isExtensionsCode(node.left)) return unknownCode(node.right, 'compared with a code');
          if (isExtensionsCode(node.right)) return unknownCode(node.left, 'compared with a code');
        }
        // `new Set(['X', 'Y'])`, `['X', 'Y']`: a list naming a code names only codes.
        if (ts.isArrayLiteralExpression(node)) {
          const texts = node.elements.flatMap((element) =>
            ts.isStringLiteral(element) ? [element.text] : [],
          );
          if (texts.some((text) => CODES.has(text))) {
            const strays = texts.filter((text) => CODE_SHAPE.test(text) && !CODES.has(text));
            if (strays.length > 0)
              return `${strays.map((text) => JSON.stringify(text)).join(', ')} in a list of codes: not codes of the catalogue`;
          }
        }
        return undefined;
      }),
    );
    expect(problems).toEqual([]);
  });
});
