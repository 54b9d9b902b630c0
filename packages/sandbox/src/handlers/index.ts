/** Every operation's handler, checked complete against the interface's operationIds. */
import { accountHandlers } from './accounts.js';
import { categoryHandlers } from './categories.js';
import type { HandlerTable } from './context.js';
import { monthHandlers } from './months.js';
import { payeeHandlers } from './payees.js';
import { planHandlers } from './plans.js';
import { scheduledHandlers } from './scheduled.js';
import { transactionReadHandlers } from './transactions-read.js';
import { transactionWriteHandlers } from './transactions-write.js';

export const HANDLERS: HandlerTable = {
  ...planHandlers,
  ...accountHandlers,
  ...categoryHandlers,
  ...payeeHandlers,
  ...monthHandlers,
  ...transactionReadHandlers,
  ...transactionWriteHandlers,
  ...scheduledHandlers,
};
