/**
 * Where each concern lives, for `bench/layout.ts`: a file holds a concern when its code (never
 * its comments: the markers are read from the syntax tree) carries one of the concern's
 * markers, and the concern's homes are the folders one level below `src` that hold such files.
 * A concern with one home has one folder here. The markers name what implements a concern, not
 * what uses it: a module that takes a clock of the shared type, or calls a lease helper, holds
 * no clock or lease of its own.
 */
import ts from 'typescript';
import { homeOf, nameOf, nodesOf, type SourceFile } from './layout-sources.js';

interface Concern {
  name: string;
  /** What is looked for, as the output states it. */
  marker: string;
  holds(node: ts.Node): boolean;
}

export interface ConcernHomes {
  name: string;
  marker: string;
  folders: string[];
  files: string[];
}

const SCREAMING = /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$/;
/** `lease` in a name, but not inside `release`. */
const LEASE = /(?<![Rr][Ee])lease/i;

const isStringLiteral = (node: ts.Node, value: string): boolean =>
  (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && node.text === value;

/** A `() => number` type (a clock), written out where it is used. */
const isClockType = (type: ts.TypeNode | undefined): boolean =>
  type !== undefined &&
  ts.isFunctionTypeNode(type) &&
  type.parameters.length === 0 &&
  type.type.kind === ts.SyntaxKind.NumberKeyword;

const isFunctionDefinition = (node: ts.Node): boolean =>
  ts.isFunctionDeclaration(node) ||
  ts.isMethodDeclaration(node) ||
  (ts.isVariableDeclaration(node) &&
    node.initializer !== undefined &&
    (ts.isArrowFunction(node.initializer) || ts.isFunctionExpression(node.initializer)));

const CONCERNS: readonly Concern[] = [
  {
    name: 'clock',
    marker:
      'a `() => number` written out for a member, parameter or variable named like now/clock, or a type, interface, class or function named like Clock/Scheduler',
    holds(node) {
      const name = nameOf(node);
      if (!name) return false;
      if (
        (ts.isPropertySignature(node) ||
          ts.isPropertyDeclaration(node) ||
          ts.isParameter(node) ||
          ts.isVariableDeclaration(node)) &&
        /now|clock/i.test(name)
      ) {
        return isClockType(node.type);
      }
      return (
        (ts.isTypeAliasDeclaration(node) ||
          ts.isInterfaceDeclaration(node) ||
          ts.isClassDeclaration(node) ||
          ts.isFunctionDeclaration(node)) &&
        /(Clock|Scheduler)$/.test(name)
      );
    },
  },
  {
    name: 'Redis link',
    marker: "the string 'ioredis' (an import, require or dynamic import of it)",
    holds: (node) => isStringLiteral(node, 'ioredis'),
  },
  {
    name: 'token digested',
    marker: 'a call of `tokenKey(...)`, the digest that keys `Credentials`',
    holds: (node) =>
      ts.isCallExpression(node) &&
      ts.isIdentifier(node.expression) &&
      node.expression.text === 'tokenKey',
  },
  {
    name: 'token read from a request',
    marker:
      "a `.get('authorization')` or `.get('access_token')` call (any case), or a regular expression matching `Bearer`",
    holds(node) {
      if (ts.isRegularExpressionLiteral(node)) return /bearer/i.test(node.text);
      if (!ts.isCallExpression(node) || !ts.isPropertyAccessExpression(node.expression)) {
        return false;
      }
      const [first] = node.arguments;
      return (
        node.expression.name.text === 'get' &&
        first !== undefined &&
        ts.isStringLiteral(first) &&
        ['authorization', 'access_token'].includes(first.text.toLowerCase())
      );
    },
  },
  {
    name: 'delta fetch',
    marker:
      'a property `last_knowledge_of_server` or `lastKnowledgeOfServer` set in an object literal (a delta request made)',
    holds: (node) =>
      (ts.isPropertyAssignment(node) || ts.isShorthandPropertyAssignment(node)) &&
      ['last_knowledge_of_server', 'lastKnowledgeOfServer'].includes(nameOf(node) ?? ''),
  },
  {
    name: 'leases',
    marker: 'a function or method defined under a name with `lease` in it (not `release`)',
    holds: (node) => isFunctionDefinition(node) && LEASE.test(nameOf(node) ?? ''),
  },
  {
    name: 'sealing (AES-GCM)',
    marker: '`createCipheriv` or `createDecipheriv` named in code',
    holds: (node) =>
      ts.isIdentifier(node) &&
      (node.text === 'createCipheriv' || node.text === 'createDecipheriv') &&
      !ts.isImportSpecifier(node.parent),
  },
  {
    name: 'error code lists',
    marker:
      'a type or constant named like *code* that lists SCREAMING_CASE strings (`ErrorCode`, `RefusalCode`, ...)',
    holds(node) {
      if (!ts.isTypeAliasDeclaration(node) && !ts.isVariableDeclaration(node)) return false;
      if (!/code/i.test(nameOf(node) ?? '')) return false;
      for (const inner of nodesOf(node)) {
        if (ts.isStringLiteral(inner) && SCREAMING.test(inner.text)) return true;
      }
      return false;
    },
  },
  {
    name: 'turn-taking (`nextTurn`)',
    marker: 'a function or method defined under the name `nextTurn`',
    holds: (node) => isFunctionDefinition(node) && nameOf(node) === 'nextTurn',
  },
  {
    name: '`requireCredentials`',
    marker: 'a function or method defined under the name `requireCredentials`',
    holds: (node) => isFunctionDefinition(node) && nameOf(node) === 'requireCredentials',
  },
];

export function concernHomes(files: readonly SourceFile[]): ConcernHomes[] {
  return CONCERNS.map((concern) => {
    const holding = files.filter((file) => {
      for (const node of nodesOf(file.ast)) if (concern.holds(node)) return true;
      return false;
    });
    const paths = holding.map((file) => file.path);
    return {
      name: concern.name,
      marker: concern.marker,
      folders: [...new Set(paths.map(homeOf))].sort(),
      files: paths,
    };
  });
}
