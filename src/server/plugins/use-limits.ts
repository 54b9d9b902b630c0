import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDirectivesPlugin } from '@escape.tech/graphql-armor-max-directives';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import type { Plugin } from 'graphql-yoga';
import type { Limits } from '../../config/config.js';
import { useOperationLimits } from './use-operation-limits.js';

/**
 * Every document and operation limit, enforced before execution: tokens, aliases and directives
 * (graphql-armor, at validation), depth, breadth and cost (`useOperationLimits`, which needs
 * the schema's list and page sizes and the variables).
 *
 * Aliases of `__typename` count like any other (graphql-armor exempts them by default): the
 * alias limit bounds how many times one document can ask for the same thing.
 */
export function useDocumentLimits(limits: Limits): Plugin[] {
  return [
    maxTokensPlugin({ n: limits.tokens }),
    maxAliasesPlugin({ n: limits.aliases, allowList: [] }),
    maxDirectivesPlugin({ n: limits.directives }),
    useOperationLimits(limits),
  ] as Plugin[];
}
