/**
 * Descriptions the schema code leaves out, filled in once the schema is built.
 *
 * Most fields mirror a REST field whose meaning is the same on every type that has it
 * (`deleted`, `memo`, `transferAccountId`, ...), and most types follow a naming pattern
 * (`XPayload`, `XResult`, `XInput`, connections and edges). Writing those meanings once here
 * keeps them consistent across types. A description written beside a field always wins; a
 * `Type.field` entry wins over a plain `field` one. `test/schema/descriptions.test.ts` fails on
 * anything still undescribed.
 */
import {
  type GraphQLNamedType,
  type GraphQLSchema,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isObjectType,
  isSpecifiedScalarType,
  isUnionType,
} from 'graphql';

const TYPES: Record<string, string> = {
  Query: 'Reads: the user, the plans and everything in them, the rate limit, any object by id.',
  Mutation:
    'One mutation per REST write. Each answers with a payload of the saved objects, or a typed ' +
    'error (`... on Error { message }`).',
  Subscription: "Live updates: a plan's changes as graph objects, pushed over SSE or WebSocket.",
  ClearedStatus: 'Whether the bank has confirmed a transaction (REST `cleared`).',
  FlagColor: 'A flag on a transaction (REST `flag_color`; no flag is null, not an empty string).',
  DebtTransactionType: 'What a transaction in a debt account does to the debt.',
  TransactionOrder: 'The order of a transaction list, by date then id.',
  HybridTransactionType: 'Whether a hybrid row is a whole transaction or one line of a split.',
  Frequency: 'How often a scheduled transaction repeats.',
  PageInfo: 'Where a page sits in its list, and the cursors to fetch the pages around it.',
};

const FIELDS: Record<string, string> = {
  id:
    'The REST id (a UUID): unique across every type of the graph, so it moves freely between ' +
    'REST and GraphQL.',
  deleted: 'Whether it was deleted upstream (lists leave deleted objects out).',
  name: 'The name, as the user wrote it.',
  note: 'The note the user wrote; null when none.',
  memo: 'The memo; null when none.',
  hidden: 'Hidden from the budget screen.',
  internal: "Part of the plan's own structure (Ready to Assign, credit card payments, ...).",
  closed: 'Closed accounts keep their history but take no new transactions.',
  onBudget: 'On budget: its transactions are categorized and count in the budget.',
  approved: 'Approved by the user (imported transactions wait for approval).',
  cleared: 'Whether the bank has confirmed it.',
  date: 'The date it happened.',
  dateFirst: 'The first occurrence.',
  dateNext: 'The next occurrence.',
  frequency: 'How often it repeats.',
  flagColor: 'Its flag; null when none.',
  flagName: 'The name the user gave the flag; null when none.',
  accountId: 'The REST id of the account.',
  account: 'The account.',
  accountName: 'The name of the account.',
  payeeId: 'The REST id of the payee; null when none.',
  payee: 'The payee; null when none.',
  payeeName: 'The name of the payee; null when none.',
  categoryId: 'The REST id of the category; null when uncategorized.',
  category: 'The category, with the amounts of the current month; null when uncategorized.',
  categoryName: 'The name of the category; null when uncategorized.',
  categoryGroupId: 'The REST id of the category group.',
  categoryGroup: 'The category group.',
  group: 'The group it belongs to.',
  transferAccountId: 'For a transfer, the REST id of the other account; null otherwise.',
  transferAccount: 'For a transfer, the other account; null otherwise.',
  transferTransactionId: 'For a transfer, the REST id of the transaction on the other side.',
  transferPayee: 'The payee that stands for this account in transfers to it.',
  matchedTransactionId: 'The transaction an import was matched with; null when none.',
  importId: 'The import id that identifies an imported transaction; null when entered by hand.',
  importPayeeName: 'The payee name an import brought, after the payee rules ran.',
  importPayeeNameOriginal: 'The payee name an import brought, as the bank sent it.',
  debtTransactionType: 'For a debt account: what the transaction does to the debt.',
  subtransactions: 'The lines of a split; empty when it is not a split.',
  transaction: 'The transaction.',
  transactionId: 'The REST id of the transaction.',
  scheduledTransaction: 'The scheduled transaction.',
  scheduledTransactionId: 'The REST id of the scheduled transaction.',
  parentTransactionId: 'For a split line, the REST id of the split; null for a whole transaction.',
  parentTransaction: 'For a split line, the split; null for a whole transaction.',
  plan: 'The plan it belongs to.',
  month: 'The month (its first day).',
  months: 'The plan months.',
  accounts: 'The accounts.',
  payees: 'Every payee of the plan (REST `GET /plans/{plan_id}/payees`).',
  payeeLocations: 'Every stored payee location of the plan.',
  categoryGroups: 'The category groups.',
  moneyMovements: 'Money moved between categories.',
  moneyMovementGroups: 'Money movements grouped by the action that made them.',
  moneyMovementGroupId: 'The REST id of the group of movements this one belongs to.',
  scheduledTransactions: 'The scheduled transactions.',
  transactions: 'The transactions.',
  type: 'The kind.',
  goalType: 'The kind of goal; null when the category has none.',
  goalDay: 'The day of the goal cadence the target is due on.',
  goalCadence: 'How the goal repeats (REST `goal_cadence`: 0 none, 1 monthly, 2 weekly, ...).',
  goalCadenceFrequency: 'Every how many cadence units the goal repeats.',
  goalCreationMonth: 'The month the goal was created.',
  goalTargetDate: 'The date a target balance by date is due.',
  goalTargetMonth: 'The month a target balance by date is due.',
  goalPercentageComplete: 'How much of the goal is funded, in percent.',
  goalMonthsToBudget: 'Months left to fund the goal, this one included.',
  goalSnoozedAt: 'When the goal was snoozed for the month; null when not snoozed.',
  originalCategoryGroupId: 'The group a hidden category came from.',
  ageOfMoney: 'Age of Money in days: how long money sat before it was spent.',
  performedByUserId: 'The user who moved the money.',
  movedAt: 'When the money was moved.',
  groupCreatedAt: 'When the movements were made.',
  fromCategoryId: 'The REST id of the category the money came from; null for Ready to Assign.',
  toCategoryId: 'The REST id of the category the money went to; null for Ready to Assign.',
  latitude: 'Latitude of the place.',
  longitude: 'Longitude of the place.',
  directImportLinked: 'Linked to a bank for direct import.',
  directImportInError: 'Its direct import link needs attention.',
  lastReconciledAt: 'When it was last reconciled; null when never.',
  debtOriginalBalance: 'The balance the debt started with.',
  debtInterestRates: 'Interest rates by date, in thousandths of a percent.',
  debtMinimumPayments: 'Minimum payments by date, in milliunits.',
  debtEscrowAmounts: 'Escrow amounts by date, in milliunits.',
  firstMonth: 'The first month of the plan.',
  lastMonth: 'The last month of the plan.',
  dateFormat: 'How the plan writes dates; null when not set.',
  currencyFormat: 'How the plan writes amounts; null when not set.',
  isoCode: 'The ISO 4217 currency code.',
  exampleFormat: 'An amount written in this format.',
  decimalDigits: 'Digits after the decimal separator.',
  decimalSeparator: 'The decimal separator.',
  symbolFirst: 'The currency symbol comes before the amount.',
  groupSeparator: 'The thousands separator.',
  currencySymbol: 'The currency symbol.',
  displaySymbol: 'Whether amounts show the currency symbol.',
  format: 'The date format, e.g. `DD.MM.YYYY`.',
  used: 'Upstream requests counted in the rolling hour.',
  limit: 'Upstream requests allowed in the rolling hour.',
  remaining: 'Upstream requests left in the rolling hour.',
  message: 'What went wrong, for people.',
  restError: 'The REST error, verbatim.',
  origin: 'What brought the change: a poll, a write through the gateway, or a replay.',
  accountIds: 'Accounts deleted.',
  categoryGroupIds: 'Category groups deleted.',
  categoryIds: 'Categories deleted.',
  payeeIds: 'Payees deleted.',
  transactionIds: 'Transactions deleted.',
  scheduledTransactionIds: 'Scheduled transactions deleted.',
  edges: 'The items of this page, each with its cursor.',
  nodes: 'The items of this page.',
  node: 'The item.',
  cursor: 'Pass as `after` (or `before`) to get the items after (or before) this one.',
  pageInfo: 'Where this page sits in the list.',
  totalCount: 'Items matching the filters, on every page.',
  hasNextPage: 'More items follow this page.',
  hasPreviousPage: 'Items come before this page.',
  startCursor: 'The cursor of the first item of the page; null when the page is empty.',
  endCursor: 'The cursor of the last item of the page; null when the page is empty.',
  amount: 'The amount in milliunits; negative for outflows.',
  payeeLocation: 'One stored payee location.',
  payeeLocationsOfPayee: 'Where the payee was used.',
};

const TYPE_FIELDS: Record<string, string> = {
  'Plan.name': 'The name of the plan.',
  'Plan.payee': 'One payee by REST id; null beside a NOT_FOUND error when the plan has none.',
  'Plan.payeeLocation': 'One payee location by REST id; null beside NOT_FOUND when unknown.',
  'Plan.account': 'One account by REST id; null beside a NOT_FOUND error when unknown.',
  'Plan.category': "One category by REST id, with the current month's amounts.",
  'Plan.transaction': 'One transaction by REST id; null beside a NOT_FOUND error when unknown.',
  'Plan.scheduledTransaction': 'One scheduled transaction by REST id.',
  'Plan.moneyMovementGroups': 'Groups of money movements, optionally of one month.',
  'Month.category': "One category with this month's amounts, by REST id.",
  'Month.moneyMovements': 'Money moved between categories in this month.',
  'Month.moneyMovementGroups': 'Groups of money movements of this month.',
  'Account.type': 'The kind of account.',
  'HybridTransaction.type': 'A whole transaction, or one line of a split.',
  'MoneyMovement.amount': 'The amount moved, in milliunits.',
  'MoneyMovementGroup.moneyMovements': 'The movements of this group.',
  'MoneyMovementGroup.month': 'The month the money moved in.',
  'MoneyMovement.group': 'The group of movements made by the same action.',
  'PlanChange.accounts': 'Accounts that changed, as they are now.',
  'PlanChange.categoryGroups': 'Category groups that changed, with their changed categories.',
  'PlanChange.months': 'Months whose totals or category amounts changed.',
  'PlanChange.payees': 'Payees that changed.',
  'PlanChange.transactions': 'Transactions that changed, as they are now.',
  'PlanChange.scheduledTransactions': 'Scheduled transactions that changed.',
  'PlanChange.deleted': 'Ids of what was deleted.',
  'PlanDeletions.months': 'Months deleted (their first days).',
  'AccountBalancesChange.accounts': 'Accounts whose balances changed, as they are now.',
  'DuplicateImportIdError.importId': 'The import id a transaction of the account already has.',
  'UpdateTransactionsItemInput.id':
    'The REST id of the transaction to update (or give `importId`).',
  'CreateAccountInput.name': 'The account name; at most 200 characters.',
  'CreateCategoryInput.name': 'The category name; at most 100 characters.',
  'UpdateCategoryInput.name': 'The new name; at most 100 characters.',
  'CreateCategoryInput.goalTargetDate': 'The date a target balance is due by.',
  'UpdateCategoryInput.goalTargetDate': 'The date a target balance is due by; null removes it.',
  'CreateCategoryGroupPayload.categoryGroup': 'The group as saved.',
  'UpdateCategoryGroupPayload.categoryGroup': 'The group as saved.',
  'CreatePayeePayload.payee': 'The payee as saved.',
  'UpdatePayeePayload.payee': 'The payee as saved.',
  'CreateTransactionPayload.transaction': 'The transaction as saved, current after the write.',
  'UpdateTransactionPayload.transaction': 'The transaction as saved, current after the write.',
  'SaveSubTransactionInput.amount': 'The amount of this line in milliunits; the lines add up.',
};

const ARGUMENTS: Record<string, string> = {
  first: 'Page forward: at most this many items (up to 500; default 50).',
  after: 'Page forward: the items after this cursor.',
  last: 'Page backward: at most this many items (up to 500).',
  before: 'Page backward: the items before this cursor.',
  id: 'The REST id.',
  month: 'A month: `current` or any day in it.',
  accountId: 'Only transactions of this account.',
  categoryId: 'Only transactions of this category (split lines included).',
  payeeId: 'Only transactions of this payee (split lines included).',
  sinceDate: 'On or after this date.',
  untilDate: 'On or before this date.',
  type: 'Only `uncategorized` or `unapproved` transactions.',
  order: 'Newest first (the default) or oldest first.',
  input: 'The fields to save, as the REST body has them.',
  transactionId: 'The REST id of the transaction.',
  scheduledTransactionId: 'The REST id of the scheduled transaction.',
  categoryGroupId: 'The REST id of the category group.',
};

const ARGUMENTS_BY_FIELD: Record<string, string> = {
  'Query.plan(id)': 'The plan UUID, `last-used` or `default`.',
  'Mutation.updateCategory(categoryId)': 'The REST id of the category.',
  'Mutation.updateMonthCategory(categoryId)': 'The REST id of the category.',
  'Mutation.updateMonthCategory(month)': 'The month whose assignment changes.',
  'Mutation.updatePayee(payeeId)': 'The REST id of the payee.',
  'Subscription.transactionsChanged(accountId)': 'Only transactions of this account.',
  'Subscription.transactionsChanged(categoryId)': 'Only transactions of this category.',
  'Category.inMonth(month)': 'The month whose amounts to show: `current` or any day in it.',
};

const ENUM_VALUES: Record<string, string> = {
  checking: 'A checking account.',
  savings: 'A savings account.',
  cash: 'Cash.',
  creditCard: 'A credit card.',
  lineOfCredit: 'A line of credit.',
  otherAsset: 'A tracking account for another asset.',
  otherLiability: 'A tracking account for another liability.',
  mortgage: 'A mortgage.',
  autoLoan: 'A car loan.',
  studentLoan: 'A student loan.',
  personalLoan: 'A personal loan.',
  medicalDebt: 'Medical debt.',
  otherDebt: 'Another debt.',
  cleared: 'Confirmed by the bank.',
  uncleared: 'Not confirmed by the bank yet.',
  reconciled: 'Cleared and reconciled with a statement.',
  red: 'Red.',
  orange: 'Orange.',
  yellow: 'Yellow.',
  green: 'Green.',
  blue: 'Blue.',
  purple: 'Purple.',
  payment: 'A payment toward the debt.',
  refund: 'A refund added to the debt.',
  fee: 'A fee added to the debt.',
  interest: 'Interest added to the debt.',
  escrow: 'An escrow payment.',
  balanceAdjustment: 'An adjustment of the balance.',
  credit: 'A credit reducing the debt.',
  charge: 'A charge adding to the debt.',
  transaction: 'A whole transaction.',
  subtransaction: 'One line of a split transaction.',
  uncategorized: 'Needs a category.',
  unapproved: 'Waits for approval.',
  never: 'Once, on its date.',
  daily: 'Every day.',
  weekly: 'Every week.',
  everyOtherWeek: 'Every two weeks.',
  twiceAMonth: 'Twice a month.',
  every4Weeks: 'Every four weeks.',
  monthly: 'Every month.',
  everyOtherMonth: 'Every two months.',
  every3Months: 'Every three months.',
  every4Months: 'Every four months.',
  twiceAYear: 'Twice a year.',
  yearly: 'Every year.',
  everyOtherYear: 'Every two years.',
  TB: 'Target balance.',
  TBD: 'Target balance by date.',
  MF: 'Monthly funding.',
  NEED: 'Plan your spending (a refill or set-aside target).',
  DEBT: 'Debt payoff.',
};

/** Private: a description that follows from the type's name, for the types the builder generates. */
function byPattern(type: GraphQLNamedType): string | undefined {
  const name = type.name;
  const of = (suffix: string) => name.slice(0, -suffix.length);
  const mutation = (stem: string) => `\`${stem.charAt(0).toLowerCase()}${stem.slice(1)}\``;
  if (name.endsWith('Payload'))
    return `What ${mutation(of('Payload'))} saved, read after the write.`;
  if (name.endsWith('Result'))
    return `What ${mutation(of('Result'))} answers: its payload, or a typed error.`;
  if (name.endsWith('Input'))
    return `The body of ${mutation(of('Input'))}, as the REST body has it.`;
  if (name.endsWith('ConnectionEdge') || name.endsWith('Edge'))
    return `One item of a \`${name.replace(/(Connection)?Edge$/, '')}\` page, with its cursor.`;
  if (name.endsWith('Connection'))
    return `A page of \`${of('Connection')}\` items with its cursors (Relay connection).`;
  return undefined;
}

/** Anything graphql-js lets carry a description: types, fields, arguments, enum values. */
interface Described {
  description?: string | null | undefined;
}

function fill(target: Described, ...candidates: (string | undefined)[]): void {
  if (target.description) return;
  const found = candidates.find((candidate) => candidate !== undefined);
  if (found !== undefined) target.description = found;
}

/** Fills in missing descriptions of `schema` (in place) and returns it. */
export function describeSchema(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (isIntrospectionType(type) || isSpecifiedScalarType(type)) continue;
    fill(type, TYPES[type.name], byPattern(type));
    if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) {
        const key = `${type.name}.${field.name}`;
        fill(field, TYPE_FIELDS[key], FIELDS[field.name]);
        if (!('args' in field)) continue;
        for (const arg of field.args) {
          fill(arg, ARGUMENTS_BY_FIELD[`${key}(${arg.name})`], ARGUMENTS[arg.name]);
        }
      }
    }
    if (isEnumType(type)) {
      for (const value of type.getValues()) fill(value, ENUM_VALUES[value.name]);
    }
    if (isUnionType(type)) fill(type, byPattern(type));
  }
  return schema;
}
