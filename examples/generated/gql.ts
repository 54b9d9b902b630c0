/* eslint-disable */
import * as types from './graphql.js';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "query DeferredDashboard($planId: PlanId! = \"last-used\") {\n  plan(id: $planId) {\n    id\n    name\n    month(month: \"current\") {\n      id\n      toBeBudgetedFormatted\n    }\n    accounts {\n      id\n      name\n      balanceFormatted\n    }\n    ... @defer(label: \"transactions\") {\n      transactions(first: 50) {\n        nodes {\n          id\n          date\n          amountFormatted\n          payee {\n            id\n            name\n          }\n        }\n      }\n    }\n  }\n}": typeof types.DeferredDashboardDocument,
    "query PlanHeader($planId: PlanId! = \"last-used\") {\n  plan(id: $planId) {\n    id\n    name\n    accounts {\n      id\n      name\n      balanceFormatted\n    }\n  }\n}": typeof types.PlanHeaderDocument,
    "mutation RenamePayee($planId: PlanId! = \"last-used\", $payeeId: UUID!, $name: String!) {\n  updatePayee(planId: $planId, payeeId: $payeeId, input: {name: $name}) {\n    __typename\n    ... on UpdatePayeePayload {\n      payee {\n        id\n        name\n      }\n    }\n    ... on Error {\n      message\n    }\n  }\n}": typeof types.RenamePayeeDocument,
    "query TransactionsPage($planId: PlanId! = \"last-used\", $first: Int = 20, $after: String) {\n  plan(id: $planId) {\n    id\n    transactions(first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          id\n          date\n          amountFormatted\n          payee {\n            id\n            name\n          }\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n}": typeof types.TransactionsPageDocument,
};
const documents: Documents = {
    "query DeferredDashboard($planId: PlanId! = \"last-used\") {\n  plan(id: $planId) {\n    id\n    name\n    month(month: \"current\") {\n      id\n      toBeBudgetedFormatted\n    }\n    accounts {\n      id\n      name\n      balanceFormatted\n    }\n    ... @defer(label: \"transactions\") {\n      transactions(first: 50) {\n        nodes {\n          id\n          date\n          amountFormatted\n          payee {\n            id\n            name\n          }\n        }\n      }\n    }\n  }\n}": types.DeferredDashboardDocument,
    "query PlanHeader($planId: PlanId! = \"last-used\") {\n  plan(id: $planId) {\n    id\n    name\n    accounts {\n      id\n      name\n      balanceFormatted\n    }\n  }\n}": types.PlanHeaderDocument,
    "mutation RenamePayee($planId: PlanId! = \"last-used\", $payeeId: UUID!, $name: String!) {\n  updatePayee(planId: $planId, payeeId: $payeeId, input: {name: $name}) {\n    __typename\n    ... on UpdatePayeePayload {\n      payee {\n        id\n        name\n      }\n    }\n    ... on Error {\n      message\n    }\n  }\n}": types.RenamePayeeDocument,
    "query TransactionsPage($planId: PlanId! = \"last-used\", $first: Int = 20, $after: String) {\n  plan(id: $planId) {\n    id\n    transactions(first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          id\n          date\n          amountFormatted\n          payee {\n            id\n            name\n          }\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n}": types.TransactionsPageDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query DeferredDashboard($planId: PlanId! = \"last-used\") {\n  plan(id: $planId) {\n    id\n    name\n    month(month: \"current\") {\n      id\n      toBeBudgetedFormatted\n    }\n    accounts {\n      id\n      name\n      balanceFormatted\n    }\n    ... @defer(label: \"transactions\") {\n      transactions(first: 50) {\n        nodes {\n          id\n          date\n          amountFormatted\n          payee {\n            id\n            name\n          }\n        }\n      }\n    }\n  }\n}"): (typeof documents)["query DeferredDashboard($planId: PlanId! = \"last-used\") {\n  plan(id: $planId) {\n    id\n    name\n    month(month: \"current\") {\n      id\n      toBeBudgetedFormatted\n    }\n    accounts {\n      id\n      name\n      balanceFormatted\n    }\n    ... @defer(label: \"transactions\") {\n      transactions(first: 50) {\n        nodes {\n          id\n          date\n          amountFormatted\n          payee {\n            id\n            name\n          }\n        }\n      }\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query PlanHeader($planId: PlanId! = \"last-used\") {\n  plan(id: $planId) {\n    id\n    name\n    accounts {\n      id\n      name\n      balanceFormatted\n    }\n  }\n}"): (typeof documents)["query PlanHeader($planId: PlanId! = \"last-used\") {\n  plan(id: $planId) {\n    id\n    name\n    accounts {\n      id\n      name\n      balanceFormatted\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "mutation RenamePayee($planId: PlanId! = \"last-used\", $payeeId: UUID!, $name: String!) {\n  updatePayee(planId: $planId, payeeId: $payeeId, input: {name: $name}) {\n    __typename\n    ... on UpdatePayeePayload {\n      payee {\n        id\n        name\n      }\n    }\n    ... on Error {\n      message\n    }\n  }\n}"): (typeof documents)["mutation RenamePayee($planId: PlanId! = \"last-used\", $payeeId: UUID!, $name: String!) {\n  updatePayee(planId: $planId, payeeId: $payeeId, input: {name: $name}) {\n    __typename\n    ... on UpdatePayeePayload {\n      payee {\n        id\n        name\n      }\n    }\n    ... on Error {\n      message\n    }\n  }\n}"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "query TransactionsPage($planId: PlanId! = \"last-used\", $first: Int = 20, $after: String) {\n  plan(id: $planId) {\n    id\n    transactions(first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          id\n          date\n          amountFormatted\n          payee {\n            id\n            name\n          }\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n}"): (typeof documents)["query TransactionsPage($planId: PlanId! = \"last-used\", $first: Int = 20, $after: String) {\n  plan(id: $planId) {\n    id\n    transactions(first: $first, after: $after) {\n      edges {\n        cursor\n        node {\n          id\n          date\n          amountFormatted\n          payee {\n            id\n            name\n          }\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n}"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;