import { useQuery } from '@apollo/client/react';
import { type QueuedWrite, resultOf } from '@plans-gateway/client-kit/offline';
import { print } from 'graphql';
import { type FormEvent, useState } from 'react';
import { ADD_TRANSACTION_TEXT } from './AddTransactionForm.js';
import { messageOf, submitWrite, useCursors, useOutbox, useOutboxState } from './Outbox.js';
import { EDIT_MEMO, RECENT_TRANSACTIONS } from './operations.js';

const EDIT_MEMO_TEXT = print(EDIT_MEMO);
/** Where a create's answer holds the new transaction's id. */
const CREATED_ID = ['createTransaction', 'transaction', 'id'];
/** The value of a create still in the queue, among the rows' ids. */
const PENDING = 'pending:';

/** A row the memo form can edit: one of the cached list, or a create not sent yet. */
interface Editable {
  readonly value: string;
  readonly label: string;
  readonly memo: string;
  /** The id the edit names: the row's, or the create's answer once it is sent. */
  readonly transactionId: unknown;
  readonly name: string;
}

/**
 * Changes the memo of one of the recent transactions (the list's own cached page), or of one
 * added while offline and not sent yet. The edit goes through the write queue with
 * `ifUnchangedSince` set to the cursor the cache is at: when the row was changed elsewhere since
 * (say, while this device was offline), the gateway writes nothing and the queue stops there, and
 * the conflict panel lets the person choose. An edit of a pending create names the create's
 * answer (`resultOf`): the queue sends the create first, puts its id in, and guards the edit with
 * the create's own `writeCursor`.
 */
export function EditMemoForm({ planId }: { planId: string }) {
  const { data } = useQuery(RECENT_TRANSACTIONS, {
    variables: { planId, first: 10 },
    fetchPolicy: 'cache-only',
  });
  const queue = useOutbox();
  const cursors = useCursors();
  const { pending } = useOutboxState(queue);
  const rows: Editable[] = [
    ...pending.filter(isCreate).map(pendingCreate),
    ...(data?.plan?.transactions.edges ?? []).map(({ node }) => ({
      value: node.id,
      label: `${node.date} ${node.payeeName ?? '—'} ${node.amountFormatted}`,
      memo: node.memo ?? '',
      transactionId: node.id,
      name: node.payeeName ?? node.amountFormatted,
    })),
  ];
  const [value, setValue] = useState('');
  const [memo, setMemo] = useState('');
  const [message, setMessage] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);

  const choose = (next: string) => {
    setValue(next);
    setMemo(rows.find((row) => row.value === next)?.memo ?? '');
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const row = rows.find((candidate) => candidate.value === value);
    if (!row) {
      setMessage(
        value.startsWith(PENDING)
          ? 'That transaction was sent: choose it again.'
          : 'Choose a transaction.',
      );
      return;
    }
    setLoading(true);
    const outcome = await submitWrite(queue, {
      query: EDIT_MEMO_TEXT,
      variables: {
        planId,
        transactionId: row.transactionId,
        input: { memo: memo.trim() || null },
        ifUnchangedSince: await cursors.get(planId),
      },
      label: `Memo of ${row.name}: “${memo.trim()}”`,
    }).finally(() => setLoading(false));
    setMessage(
      outcome.kind === 'sent'
        ? 'Saved.'
        : outcome.kind === 'waiting'
          ? 'Saved here: it will be sent when you are back online.'
          : `Not saved: ${outcome.kind === 'refused' ? messageOf(outcome.reason) : outcome.conflict.message}`,
    );
  };

  return (
    <form onSubmit={submit} className="add-form" data-testid="edit-memo-form" noValidate>
      <label>
        Transaction
        <select name="transaction" value={value} onChange={(e) => choose(e.target.value)}>
          <option value="" disabled>
            Choose a transaction
          </option>
          {rows.map((row) => (
            <option key={row.value} value={row.value}>
              {row.label}
            </option>
          ))}
        </select>
      </label>
      <label>
        Memo
        <input name="new-memo" value={memo} onChange={(e) => setMemo(e.target.value)} />
      </label>
      <button type="submit" disabled={loading}>
        {loading ? 'Saving…' : 'Save memo'}
      </button>
      {message && (
        <p className="message" data-testid="edit-memo-message" role="status">
          {message}
        </p>
      )}
    </form>
  );
}

function isCreate(write: QueuedWrite): boolean {
  return write.query === ADD_TRANSACTION_TEXT;
}

/** A create waiting in the queue, as the memo form offers it (its input as the app queued it). */
function pendingCreate(write: QueuedWrite): Editable {
  const input = (write.variables.input ?? {}) as { date?: string; memo?: string | null };
  const name = write.label ?? 'a new transaction';
  return {
    value: `${PENDING}${write.key}`,
    label: `${input.date ?? ''} ${name} (pending)`,
    memo: input.memo ?? '',
    transactionId: resultOf(write, CREATED_ID),
    name,
  };
}
