import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDirectivesPlugin } from '@escape.tech/graphql-armor-max-directives';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import type { Plugin } from 'graphql-yoga';
import type { Limits } from '../../config.js';

/**
 * Document-shape limits enforced before execution (aliases, tokens, directives). Depth,
 * breadth and cost, which need the schema's list and page sizes, are the Pothos complexity
 * plugin's (see `src/schema/builder.ts`).
 */
export function useDocumentLimits(limits: Limits): Plugin[] {
  return [
    maxTokensPlugin({ n: limits.tokens }),
    maxAliasesPlugin({ n: limits.aliases }),
    maxDirectivesPlugin({ n: limits.directives }),
  ] as Plugin[];
}
