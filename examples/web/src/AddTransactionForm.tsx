import { print } from 'graphql';
import { type FormEvent, useState } from 'react';
import { localToday } from './dates.js';
import { messageOf, submitWrite, useOutbox } from './Outbox.js';
import { type Account, ADD_TRANSACTION, type MonthCategory } from './operations.js';

/** The create as queued: how the memo form finds the creates still waiting to be sent. */
export const ADD_TRANSACTION_TEXT = print(ADD_TRANSACTION);

/**
 * Adds an outflow. The mutation selects `changes`, so the account balance, the category's
 * activity in the chart and Ready to Assign update from its answer alone; the resume after it
 * places the new row in the lists. The category starts unchosen (a guess would file spending
 * under the wrong one unnoticed) and the date starts at today where the person is.
 *
 * It goes through the write queue: offline, it waits there (shown as pending, its memo editable
 * in the memo form) and is sent once when the network is back, with the Idempotency-Key it got now.
 */
export function AddTransactionForm(props: {
  planId: string;
  accounts: Account[];
  categories: MonthCategory[];
}) {
  const [accountId, setAccountId] = useState(props.accounts[0]?.id ?? '');
  const [categoryId, setCategoryId] = useState('');
  const [date, setDate] = useState(localToday);
  const [payee, setPayee] = useState('');
  const [spent, setSpent] = useState('');
  const [memo, setMemo] = useState('');
  const [message, setMessage] = useState<string | null>(null);
  const queue = useOutbox();
  const [loading, setLoading] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const milliunits = Math.round(Number(spent) * 1000);
    const problem = !accountId
      ? 'Choose an account.'
      : !categoryId
        ? 'Choose a category.'
        : !/^\d{4}-\d{2}-\d{2}$/.test(date)
          ? 'Enter the date.'
          : !Number.isFinite(milliunits) || milliunits <= 0
            ? 'Enter what was spent, as a positive amount.'
            : null;
    if (problem) {
      setMessage(problem);
      return;
    }
    setLoading(true);
    const outcome = await submitWrite(queue, {
      query: ADD_TRANSACTION_TEXT,
      variables: {
        planId: props.planId,
        input: {
          accountId,
          categoryId,
          amount: -milliunits,
          date,
          payeeName: payee.trim() || null,
          memo: memo.trim() || null,
        },
      },
      label: payee.trim() || memo.trim() || `${spent} spent`,
    }).finally(() => setLoading(false));
    if (outcome.kind === 'refused' || outcome.kind === 'conflict') {
      setMessage(
        `Not added: ${outcome.kind === 'refused' ? messageOf(outcome.reason) : outcome.conflict.message}`,
      );
      return;
    }
    setMessage(
      outcome.kind === 'sent' ? 'Added.' : 'Saved here: it will be sent when you are back online.',
    );
    setCategoryId('');
    setSpent('');
    setMemo('');
  };

  return (
    <form onSubmit={submit} className="add-form" data-testid="add-form" noValidate>
      <label>
        Account
        <select name="account" value={accountId} onChange={(e) => setAccountId(e.target.value)}>
          {props.accounts.map((account) => (
            <option key={account.id} value={account.id}>
              {account.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        Category
        <select name="category" value={categoryId} onChange={(e) => setCategoryId(e.target.value)}>
          <option value="" disabled>
            Choose a category
          </option>
          {props.categories.map((category) => (
            <option key={category.categoryId} value={category.categoryId}>
              {category.categoryGroupName}: {category.name}
            </option>
          ))}
        </select>
      </label>
      <div className="pair">
        <label>
          Date
          <input
            name="date"
            type="date"
            value={date}
            max={localToday()}
            onChange={(e) => setDate(e.target.value)}
          />
        </label>
        <label>
          Spent
          <input
            name="amount"
            inputMode="decimal"
            placeholder="12.34"
            value={spent}
            onChange={(e) => setSpent(e.target.value)}
          />
        </label>
      </div>
      <label>
        Payee
        <input name="payee" value={payee} onChange={(e) => setPayee(e.target.value)} />
      </label>
      <label>
        Memo
        <input name="memo" value={memo} onChange={(e) => setMemo(e.target.value)} />
      </label>
      <button type="submit" disabled={loading}>
        {loading ? 'Adding…' : 'Add'}
      </button>
      {message && (
        <p className="message" data-testid="form-message" role="status">
          {message}
        </p>
      )}
    </form>
  );
}
