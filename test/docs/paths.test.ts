/**
 * Every path of the repository a Markdown file names (`src/…`, `test/…`, `packages/…`, `docs/…`,
 * `lint/…`, in prose or in code) exists, so a README does not keep pointing at a file that moved.
 * A path is read from the repository's root, from the Markdown file's folder, or from the
 * package it is in (a package's README says `src/money.ts`). Patterns (`test/schema/<domain>.ts`,
 * `src/**`) are not paths; CHANGELOG.md is history and names files as they were.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../cli/support/process.js';

const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', '.git', 'generated']);
const HISTORY = new Set(['CHANGELOG.md']);

function markdown(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = dir === '.' ? entry.name : `${dir}/${entry.name}`;
    if (entry.isDirectory()) return SKIPPED_FOLDERS.has(entry.name) ? [] : markdown(path);
    return entry.name.endsWith('.md') && !HISTORY.has(path) ? [path] : [];
  });
}

const DOCUMENTS = markdown('.');
const PATH = /(?<![\w./-])((?:src|test|packages|docs|lint)\/[\w./*{}<>,@…-]*[\w/*}>…])/g;

/** The folders a path in `document` may be relative to. */
function basesOf(document: string): string[] {
  const [top, name] = document.split('/');
  const bases = ['.', dirname(document)];
  if ((top === 'packages' || top === 'examples') && name) bases.push(`${top}/${name}`);
  return bases;
}

describe('paths named in Markdown', () => {
  it('finds the documents', () => {
    expect(DOCUMENTS).toEqual(
      expect.arrayContaining(['README.md', 'CONTRIBUTING.md', 'src/errors/README.md']),
    );
    expect(DOCUMENTS).not.toContain('CHANGELOG.md');
  });

  it('names only paths that exist', () => {
    const named = DOCUMENTS.flatMap((document) =>
      [...readFileSync(join(ROOT, document), 'utf8').matchAll(PATH)].map(([, path]) => ({
        document,
        path: path ?? '',
      })),
    ).filter(({ path }) => !/[*{}<>,…]/.test(path));
    expect(named.length).toBeGreaterThan(300);
    const missing = named
      .filter(({ document, path }) =>
        basesOf(document).every((base) => !existsSync(join(ROOT, base, path))),
      )
      .map(({ document, path }) => `${document}: ${path}`);
    expect(missing).toEqual([]);
  });
});
