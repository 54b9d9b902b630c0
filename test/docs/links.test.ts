/**
 * The documentation holds together: every relative link and anchor in README.md,
 * CONTRIBUTING.md, CHANGELOG.md and docs/*.md
 * resolves (images included), every `docs/<file>.md#<anchor>` a source comment cites exists,
 * docs/operating.md's settings table names exactly the environment variables
 * src/config/settings.ts reads, and docs/graph.md's error table exactly the codes of the error
 * catalogue (src/errors/catalogue.ts).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { USAGE } from '../../src/config/settings.js';
import { ERROR_CATALOGUE } from '../../src/errors/catalogue.js';
import { ROOT } from '../cli/support/process.js';

const DOCUMENTS = [
  'README.md',
  'CONTRIBUTING.md',
  'CHANGELOG.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

/** The text outside fenced code blocks and inline code. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchors for a file's headings (numbered when repeated). */
function anchorsOf(path: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const [, heading] of read(path)
    .replace(/^```[\s\S]*?^```/gm, '')
    .matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = (heading ?? '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** Relative link targets of a Markdown file: `[text](target)` and `![alt](target)`. */
function linksOf(path: string): string[] {
  return [...prose(read(path)).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map(([, target]) => target ?? '')
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** Why a link from `from` to `target` does not resolve, or undefined when it does. */
function brokenLink(from: string, target: string): string | undefined {
  const [file = '', anchor] = target.split('#');
  const path = file === '' ? from : relative(ROOT, join(ROOT, dirname(from), decodeURI(file)));
  if (!existsSync(join(ROOT, path))) return `${target}: no file ${path}`;
  if (anchor === undefined) return undefined;
  if (statSync(join(ROOT, path)).isDirectory() || !path.endsWith('.md'))
    return `${target}: an anchor into ${path}, which has no headings`;
  return anchorsOf(path).has(anchor) ? undefined : `${target}: no heading #${anchor} in ${path}`;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.(ts|md|cjs)$/.test(entry.name) ? [path] : [];
  });
}

describe('documentation links', () => {
  it('finds the documents', () => {
    expect(DOCUMENTS).toEqual(
      expect.arrayContaining(['README.md', 'docs/graph.md', 'docs/operating.md']),
    );
  });

  it.each(DOCUMENTS)('%s: every relative link and anchor resolves', (path) => {
    const broken = linksOf(path)
      .map((target) => brokenLink(path, target))
      .filter((problem) => problem !== undefined);
    expect(broken).toEqual([]);
  });

  it('every docs/<file>.md#<anchor> cited in the code exists', () => {
    const cited = ['src', 'packages', 'test', 'bench', 'examples']
      .flatMap(sourceFiles)
      .flatMap((file) =>
        [...read(file).matchAll(/(?<![\w/.])docs\/([\w-]+\.md)#([\w-]+)/g)].map(
          ([whole, doc, anchor]) => ({ file, whole, doc: `docs/${doc}`, anchor: anchor ?? '' }),
        ),
      );
    expect(cited.length).toBeGreaterThan(5);
    const broken = cited
      .filter(({ doc, anchor }) => !existsSync(join(ROOT, doc)) || !anchorsOf(doc).has(anchor))
      .map(({ file, whole }) => `${file}: ${whole}`);
    expect(broken).toEqual([]);
  });
});

describe("docs/operating.md's settings table", () => {
  const settingsSource = read('src/config/settings.ts');
  const readBySettings = new Set([
    ...[
      ...settingsSource.matchAll(/(?:optional\(env,|seconds\(|kib\()\s*'([A-Z][A-Z0-9_]+)'/g),
    ].map(([, name]) => name ?? ''),
    ...[...settingsSource.matchAll(/\benv\.([A-Z][A-Z0-9_]+)/g)].map(([, name]) => name ?? ''),
  ]);
  const section = /^## Settings\n([\s\S]*?)^## /m.exec(read('docs/operating.md'))?.[1] ?? '';
  const documented = new Set(
    section
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .flatMap((line) => [...(line.split('|')[1] ?? '').matchAll(/`([A-Z][A-Z0-9_]+)`/g)])
      .map(([, name]) => name ?? ''),
  );

  it('names every environment variable src/config/settings.ts reads', () => {
    expect(readBySettings.size).toBeGreaterThan(40);
    expect([...readBySettings].filter((name) => !documented.has(name))).toEqual([]);
  });

  it('gives each default `--help` prints (both read the same constants)', () => {
    const defaults = [...USAGE.matchAll(/^ {2}([A-Z][A-Z0-9_]+) .*\(default (?!:)([^)]*)\)/gm)].map(
      ([, name, text]) => ({
        name: name ?? '',
        value: (text ?? '').split(/\s/)[0]!.replace(/[;,]$/, ''),
      }),
    );
    expect(defaults.length).toBeGreaterThan(35);
    const rows = new Map(
      section
        .split('\n')
        .filter((line) => line.startsWith('| `'))
        .map((line) => line.split('|').map((cell) => cell.trim()))
        .map((cells) => [cells[1] ?? '', cells[3] ?? ''] as const),
    );
    const cellOf = (name: string) =>
      [...rows].find(([names]) => names.includes(`\`${name}\``))?.[1] ?? '';
    const wrong = defaults
      // "off: read-only" ends its value with a colon, "pgw:" holds one.
      .filter(({ name, value }) =>
        [value, value.replace(/:$/, '')].every((v) => !cellOf(name).includes(`\`${v}\``)),
      )
      .map(({ name, value }) => `${name}: --help says ${value}, the table ${cellOf(name)}`);
    expect(wrong).toEqual([]);
  });

  it('names nothing else', () => {
    expect([...documented].filter((name) => !readBySettings.has(name))).toEqual([]);
  });
});

describe("docs/graph.md's error table", () => {
  const section = /^## Errors\n([\s\S]*?)^## /m.exec(read('docs/graph.md'))?.[1] ?? '';
  // The codes of the `extensions.code` column: those before any note in parentheses (which may
  // name settings such as `WEBHOOK_KEY`).
  const documented = new Set(
    section
      .split('\n')
      .filter((line) => line.startsWith('| '))
      .flatMap((line) => [
        ...(line.split('|')[2]?.split('(')[0] ?? '').matchAll(/`([A-Z][A-Z_]+)`/g),
      ])
      .map(([, code]) => code ?? ''),
  );
  const catalogue = Object.keys(ERROR_CATALOGUE);

  it('documents every code of the catalogue', () => {
    expect(catalogue.length).toBeGreaterThan(25);
    expect(catalogue.filter((code) => !documented.has(code))).toEqual([]);
  });

  it('names nothing else', () => {
    expect([...documented].filter((code) => !catalogue.includes(code))).toEqual([]);
  });
});
