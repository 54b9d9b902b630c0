import { useQuery } from '@apollo/client/react';
import { print } from 'graphql';
import { type FormEvent, useState } from 'react';
import { messageOf, submitWrite, useCursors, useOutbox } from './Outbox.js';
import { EDIT_MEMO, RECENT_TRANSACTIONS } from './operations.js';

const EDIT_MEMO_TEXT = print(EDIT_MEMO);

/**
 * Changes the memo of one of the recent transactions (the list's own cached page). The edit goes
 * through the write queue with `ifUnchangedSince` set to the cursor the cache is at: when the
 * row was changed elsewhere since (say, while this device was offline), the gateway writes
 * nothing and the queue stops there, and the conflict panel lets the person choose.
 */
export function EditMemoForm({ planId }: { planId: string }) {
  const { data } = useQuery(RECENT_TRANSACTIONS, {
    variables: { planId, first: 10 },
    fetchPolicy: 'cache-only',
  });
  const rows = data?.plan?.transactions.edges.map(({ node }) => node) ?? [];
  const [id, setId] = useState('');
  const [memo, setMemo] = useState('');
  const [message, setMessage] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const queue = useOutbox();
  const cursors = useCursors();

  const choose = (next: string) => {
    setId(next);
    setMemo(rows.find((row) => row.id === next)?.memo ?? '');
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const row = rows.find((candidate) => candidate.id === id);
    if (!row) {
      setMessage('Choose a transaction.');
      return;
    }
    setLoading(true);
    const outcome = await submitWrite(queue, {
      query: EDIT_MEMO_TEXT,
      variables: {
        planId,
        transactionId: row.id,
        input: { memo: memo.trim() || null },
        ifUnchangedSince: await cursors.get(planId),
      },
      label: `Memo of ${row.payeeName ?? row.amountFormatted}: “${memo.trim()}”`,
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
        <select name="transaction" value={id} onChange={(e) => choose(e.target.value)}>
          <option value="" disabled>
            Choose a transaction
          </option>
          {rows.map((row) => (
            <option key={row.id} value={row.id}>
              {row.date} {row.payeeName ?? '—'} {row.amountFormatted}
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
