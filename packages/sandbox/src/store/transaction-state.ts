/**
 * The validated, store-resolved shape of a transaction write: what the transaction will look like
 * once saved. Validation (validate/transaction.ts) builds it; the write operations
 * (store/transactions.ts) apply it without further checks.
 */
import type {
  ClearedStatus,
  DebtTransactionType,
  FlagColor,
  IsoDate,
} from '@plans-gateway/rest-contract';

/** Who the payee is: an existing payee, one to find or create by name, or none. */
export type PayeeRef =
  | { kind: 'id'; id: string }
  | { kind: 'name'; name: string }
  | { kind: 'none' };

export interface SubTransactionState {
  amount: number;
  payee: PayeeRef;
  /** Set when the payee is another account's transfer payee. */
  transferAccountId: string | null;
  categoryId: string | null;
  memo: string | null;
}

export interface TransactionState {
  accountId: string;
  date: IsoDate;
  amount: number;
  payee: PayeeRef;
  transferAccountId: string | null;
  categoryId: string | null;
  memo: string | null;
  cleared: ClearedStatus;
  approved: boolean;
  flagColor: FlagColor | null;
  /** Non-empty makes (or keeps) the transaction a split. */
  subtransactions: SubTransactionState[];
}

/** Fields only a new transaction can carry. */
export interface NewTransactionExtras {
  importId: string | null;
  importPayeeName: string | null;
  importPayeeNameOriginal: string | null;
  debtTransactionType: DebtTransactionType | null;
}
