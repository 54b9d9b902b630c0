/**
 * Internal error classes (those outside src/errors, which never reach a client as they are) carry
 * a stable `code`, as undici's errors carry `UND_ERR_*`: a log line, a delivery's last error or a
 * caller can tell them apart by it instead of by class name or message. This reads every class
 * of src that extends an error class and checks that each declares its own `GW_ERR_*` code, that
 * no two share one, and that src/errors/README.md lists them all.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { AeadOpenError } from '../../src/crypto/aead.js';
import { ReplicaDataError } from '../../src/replica/validate.js';
import { WebhookStoreUnavailableError } from '../../src/webhooks/store.js';
import { ROOT } from '../cli/support/process.js';

const INTERNAL_CODE = /^GW_ERR_[A-Z0-9_]+$/;

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return path === 'src/errors' ? [] : sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

interface ErrorClass {
  readonly where: string;
  readonly name: string;
  readonly base: string;
  /** The string its `code` property is initialised with, if it declares one. */
  readonly code: string | undefined;
}

const declared: ErrorClass[] = sources('src').flatMap((path) => {
  const file = ts.createSourceFile(
    path,
    readFileSync(join(ROOT, path), 'utf8'),
    ts.ScriptTarget.Latest,
    true,
  );
  const found: ErrorClass[] = [];
  const walk = (node: ts.Node) => {
    if (ts.isClassLike(node) && node.name) {
      const base = node.heritageClauses
        ?.find((clause) => clause.token === ts.SyntaxKind.ExtendsKeyword)
        ?.types[0]?.expression.getText(file);
      const code = node.members
        .filter(ts.isPropertyDeclaration)
        .find((member) => member.name.getText(file) === 'code')?.initializer;
      if (base)
        found.push({
          where: `${path}:${file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1}`,
          name: node.name.text,
          base,
          code: code && ts.isStringLiteral(code) ? code.text : undefined,
        });
    }
    ts.forEachChild(node, walk);
  };
  walk(file);
  return found;
});

/** Classes extending `Error`, or a class that does (by name, in src). */
const errorClasses = (() => {
  const names = new Set(['Error']);
  let grew = true;
  while (grew) {
    grew = false;
    for (const c of declared)
      if (names.has(c.base) && !names.has(c.name)) {
        names.add(c.name);
        grew = true;
      }
  }
  return declared.filter((c) => names.has(c.base));
})();

describe('internal error codes', () => {
  it('finds the error classes outside src/errors', () => {
    expect(errorClasses.map((c) => c.name)).toEqual(
      expect.arrayContaining(['AeadOpenError', 'ReplicaDataError', 'TargetRefusedError']),
    );
  });

  it('each declares a GW_ERR_ code of its own', () => {
    const missing = errorClasses
      .filter((c) => c.code === undefined || !INTERNAL_CODE.test(c.code))
      .map((c) => `${c.where}: ${c.name} has ${c.code ? `code ${c.code}` : 'no code'}`);
    expect(missing).toEqual([]);
  });

  it('no two classes share a code', () => {
    const byCode = new Map<string | undefined, ErrorClass[]>();
    for (const c of errorClasses) byCode.set(c.code, [...(byCode.get(c.code) ?? []), c]);
    const shared = [...byCode]
      .filter(([, classes]) => classes.length > 1)
      .map(([code, classes]) => `${code}: ${classes.map((c) => c.name).join(', ')}`);
    expect(shared).toEqual([]);
  });

  it('src/errors/README.md lists every code', () => {
    const readme = readFileSync(join(ROOT, 'src/errors/README.md'), 'utf8');
    const unlisted = errorClasses
      .filter((c) => !readme.includes(`\`${c.code}\``))
      .map((c) => `${c.name}: ${c.code}`);
    expect(unlisted).toEqual([]);
  });

  it('an instance carries its code, beside its name and message', () => {
    expect(new AeadOpenError('altered')).toMatchObject({
      name: 'AeadOpenError',
      code: 'GW_ERR_AEAD_OPEN',
      message: 'altered',
    });
    expect(new ReplicaDataError('accounts[0].balance', 'an integer', 'x').code).toBe(
      'GW_ERR_REPLICA_DATA',
    );
    expect(new WebhookStoreUnavailableError('list').code).toBe('GW_ERR_WEBHOOK_STORE_UNAVAILABLE');
  });
});
