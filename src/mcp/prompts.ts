/**
 * Prompts for the common budgeting conversations: a monthly review, categorizing what is
 * uncategorized, covering overspending. Each is a user message naming the tools to use, in the
 * order that answers it with the fewest calls; the model does the talking.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

const MONTH = z
  .string()
  .optional()
  .describe('The month: "current" (the default), "2026-11" or a date in it.');

export function registerPrompts(mcp: McpServer): void {
  mcp.registerPrompt(
    'monthly_review',
    {
      title: 'Monthly review',
      description: 'Review a month: income, spending by category, overspending, Ready to Assign.',
      argsSchema: { month: MONTH },
    },
    ({ month }) =>
      userMessage(
        `Review my budget for ${month ?? 'the current month'}. Call month_budget for that month, then spending_report for the same month (its totals count split lines and leave transfers out: quote them rather than adding amounts yourself). Tell me: income, what was assigned, the five largest spending categories, every overspent category (negative balance) and Ready to Assign. Quote amounts in their formatted form.`,
      ),
  );
  mcp.registerPrompt(
    'categorize_uncategorized',
    {
      title: 'Categorize uncategorized transactions',
      description: 'Find uncategorized transactions and categorize (and approve) them with me.',
    },
    () =>
      userMessage(
        'Help me categorize my uncategorized transactions. Call search_transactions with type "uncategorized", and month_budget (for the category names). Propose a category for each transaction (by its payee and memo), show me the list, and once I agree, call categorize_transactions once for all of them (each item with its id and categoryId), then approve_transactions for the same ids.',
      ),
  );
  mcp.registerPrompt(
    'cover_overspending',
    {
      title: 'Cover overspending',
      description: 'Cover overspent categories by moving money from categories with money left.',
      argsSchema: { month: MONTH },
    },
    ({ month }) =>
      userMessage(
        `Help me cover overspending in ${month ?? 'the current month'}. Call month_budget for that month: list the overspent categories (negative balance) and the categories with money left. Propose moves that cover each overspent category, and once I agree, make each move with assign_to_category: the giving category's new assigned amount, then the receiving one's (each answer gives the amount it replaced: check both).`,
      ),
  );
}

function userMessage(text: string) {
  return { messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }] };
}
