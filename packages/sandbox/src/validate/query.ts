/** Query string parameters: each reader names the parameter in its 400 detail. */
import {
  type IsoDate,
  TRANSACTION_LIST_TYPES,
  type TransactionListType,
} from '@plans-gateway/rest-contract';
import { calendarDateOf } from '../core/dates.js';
import { badRequest } from '../core/errors.js';
import { DATE_FORMAT_RULE } from './fields.js';

export type Query = Readonly<Record<string, string>>;

export function readKnowledgeParam(query: Query): number | null {
  const raw = query.last_knowledge_of_server;
  if (raw === undefined) return null;
  if (!/^\d{1,16}$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
    throw badRequest('last_knowledge_of_server must be a non-negative integer');
  }
  return Number(raw);
}

export function readDateParam(query: Query, name: 'since_date' | 'until_date'): IsoDate | null {
  const raw = query[name];
  if (raw === undefined) return null;
  const date = calendarDateOf(raw);
  if (date === null) throw badRequest(`${name} must be ${DATE_FORMAT_RULE}`);
  return date;
}

export function readTypeParam(query: Query): TransactionListType | null {
  const raw = query.type;
  if (raw === undefined) return null;
  if (!(TRANSACTION_LIST_TYPES as readonly string[]).includes(raw)) {
    throw badRequest(`type must be one of: ${TRANSACTION_LIST_TYPES.join(', ')}`);
  }
  return raw as TransactionListType;
}

export function readBooleanParam(query: Query, name: string): boolean | null {
  const raw = query[name];
  if (raw === undefined) return null;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw badRequest(`${name} must be true or false`);
}
