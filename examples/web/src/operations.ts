import type { TypedDocumentNode } from '@apollo/client';
import { gql } from '@apollo/client';

/** The amounts a month category shows, selected alike wherever one arrives (query, payload, event). */
const MONTH_CATEGORY_AMOUNTS = 'id budgeted activity balance';
const ACCOUNT_AMOUNTS = 'id balance balanceFormatted';
const MONTH_TOTALS = 'id budgeted activity toBeBudgeted toBeBudgetedFormatted';

export interface Account {
  id: string;
  name: string;
  type: string;
  closed: boolean;
  onBudget: boolean;
  balance: number;
  balanceFormatted: string;
}

export interface MonthCategory {
  id: string;
  categoryId: string;
  name: string;
  hidden: boolean;
  categoryGroupName: string;
  budgeted: number;
  activity: number;
  balance: number;
}

export interface Dashboard {
  plan: {
    id: string;
    name: string;
    accounts: Account[];
    month: {
      id: string;
      month: string;
      budgeted: number;
      activity: number;
      toBeBudgeted: number;
      toBeBudgetedFormatted: string;
      categories: MonthCategory[];
    } | null;
  } | null;
}

export const DASHBOARD: TypedDocumentNode<Dashboard, { planId: string }> = gql`
  query Dashboard($planId: PlanId!) {
    plan(id: $planId) {
      id
      name
      accounts { id name type closed onBudget balance balanceFormatted }
      month(month: "current") {
        ${MONTH_TOTALS}
        month
        categories { ${MONTH_CATEGORY_AMOUNTS} categoryId name hidden categoryGroupName }
      }
    }
  }
`;

export interface TransactionRow {
  id: string;
  date: string;
  amount: number;
  amountFormatted: string;
  memo: string | null;
  payeeName: string | null;
  categoryName: string | null;
  account: { id: string; name: string };
}

export interface RecentTransactions {
  plan: {
    id: string;
    transactions: {
      totalCount: number;
      edges: { cursor: string; node: TransactionRow }[];
      pageInfo: { hasNextPage: boolean; endCursor: string | null };
    };
  } | null;
}

export const RECENT_TRANSACTIONS: TypedDocumentNode<
  RecentTransactions,
  { planId: string; first: number; after?: string | null }
> = gql`
  query RecentTransactions($planId: PlanId!, $first: Int!, $after: String) {
    plan(id: $planId) {
      id
      transactions(first: $first, after: $after) {
        totalCount
        edges {
          cursor
          node { id date amount amountFormatted memo payeeName categoryName account { id name } }
        }
        pageInfo { hasNextPage endCursor }
      }
    }
  }
`;

/** A register's row: what the recent list shows but the account (the register is one account's). */
export interface RegisterRow extends Omit<TransactionRow, 'account'> {
  cleared: 'cleared' | 'uncleared' | 'reconciled';
}

export interface AccountRegister {
  plan: {
    id: string;
    account: {
      id: string;
      name: string;
      balance: number;
      balanceFormatted: string;
      transactions: {
        totalCount: number;
        edges: { cursor: string; node: RegisterRow }[];
        pageInfo: { hasNextPage: boolean; endCursor: string | null };
      };
    } | null;
  } | null;
}

/** How many rows an account register reads at a time (its first page, then "Load more"). */
export const REGISTER_PAGE = 50;

/** One account's register, newest first, a page at a time (the kit's relayStylePagination). */
export const ACCOUNT_REGISTER: TypedDocumentNode<
  AccountRegister,
  { planId: string; accountId: string; first: number; after?: string | null }
> = gql`
  query AccountRegister($planId: PlanId!, $accountId: UUID!, $first: Int!, $after: String) {
    plan(id: $planId) {
      id
      account(id: $accountId) {
        ${ACCOUNT_AMOUNTS}
        name
        transactions(first: $first, after: $after) {
          totalCount
          edges {
            cursor
            node { id date amount amountFormatted memo payeeName categoryName cleared }
          }
          pageInfo { hasNextPage endCursor }
        }
      }
    }
  }
`;

/**
 * The resume (`changes(since:)`, run by the client kit on start and on reconnect): of each
 * changed row, exactly what the screens show (Home, Budget, the account registers), and the ids
 * of what was deleted. The kit's own document selects every field; this one is the app's.
 * A transaction's `date` and `account { id }`, and `transactionsBefore`, let the kit place new and
 * moved rows in Home's list and the registers, and keep their counts, without reading them again.
 */
export const RESUME_CHANGES = `query ResumeChanges($planId: PlanId!, $since: String) {
  changes(planId: $planId, since: $since) {
    __typename
    ... on ChangesPage {
      planId cursor hasMore
      changes {
        accounts { ${ACCOUNT_AMOUNTS} name closed onBudget }
        monthCategories { ${MONTH_CATEGORY_AMOUNTS} }
        months { ${MONTH_TOTALS} }
        transactions { id date amount amountFormatted memo payeeName categoryName cleared account { id } }
        deleted { accountIds categoryIds transactionIds }
        transactionsBefore { id accountId }
      }
    }
    ... on ReloadRequired { message planId cursor }
  }
}`;

export interface AddTransactionResult {
  createTransaction:
    | { __typename: 'CreateTransactionPayload'; transaction: { id: string } }
    | { __typename: 'NotFoundError' | 'ReadOnlyScopeError' | 'ValidationError'; message: string }
    | null;
}

export interface NewTransaction {
  accountId: string;
  categoryId: string;
  amount: number;
  date: string;
  payeeName: string | null;
  memo: string | null;
}

/**
 * `changes` brings the new balances and activity into the cache: no refetch. `writeCursor`
 * guards an edit of the new row queued after it while offline (the write queue hands it on).
 */
export const ADD_TRANSACTION: TypedDocumentNode<
  AddTransactionResult,
  { planId: string; input: NewTransaction }
> = gql`
  mutation AddTransaction($planId: PlanId!, $input: CreateTransactionInput!) {
    createTransaction(planId: $planId, input: $input) {
      __typename
      ... on CreateTransactionPayload {
        transaction { id }
        writeCursor
        changes {
          accounts { ${ACCOUNT_AMOUNTS} }
          monthCategories { ${MONTH_CATEGORY_AMOUNTS} }
          months { ${MONTH_TOTALS} }
        }
      }
      ... on Error { message }
    }
  }
`;

export interface PlanChanged {
  planChanged: {
    origin: string;
    serverKnowledge: number;
    transactions: { id: string }[];
    deleted: { transactionIds: string[] };
  };
}

/** Changes made anywhere (another device, the upstream's own apps) while the page is open. */
export const PLAN_CHANGED: TypedDocumentNode<PlanChanged, { planId: string }> = gql`
  subscription PlanChanged($planId: PlanId!) {
    planChanged(planId: $planId) {
      origin
      serverKnowledge
      accounts { ${ACCOUNT_AMOUNTS} }
      monthCategories { ${MONTH_CATEGORY_AMOUNTS} }
      months { ${MONTH_TOTALS} }
      transactions { id }
      deleted { transactionIds }
    }
  }
`;

/**
 * A transaction's memo, edited through the write queue. `ifUnchangedSince` is the cursor the
 * cache is at: when the row changed elsewhere after it, nothing is written and the answer is a
 * `WriteConflict` with the row as it is now (`current`) and the edit (`attempted`). `writeCursor`
 * lets the queue send a later edit of the same row without conflicting with this one.
 */
export const EDIT_MEMO = gql`
  mutation EditMemo($planId: PlanId!, $transactionId: ID!, $input: UpdateTransactionInput!, $ifUnchangedSince: String) {
    updateTransaction(planId: $planId, transactionId: $transactionId, input: $input, ifUnchangedSince: $ifUnchangedSince) {
      __typename
      ... on UpdateTransactionPayload {
        writeCursor
        transaction { id memo }
      }
      ... on WriteConflict {
        cursor
        attempted
        current { id ... on Transaction { memo } }
      }
      ... on Error { message }
    }
  }
`;
