import { useQuery } from '@apollo/client/react';
import { shortDate } from './dates.js';
import { ACCOUNT_REGISTER, REGISTER_PAGE, type RegisterRow } from './operations.js';
import { Paging } from './Paging.js';

const CLEARED_MARK: Record<RegisterRow['cleared'], string> = {
  cleared: 'C',
  reconciled: 'R',
  uncleared: '',
};

/**
 * One account's register: its transactions newest first, 50 at a time ("Load more" asks the
 * next page of the connection; the client kit's relayStylePagination appends it), with the
 * cleared mark and the memo a register shows. A table on wide screens, two lines per row on a
 * phone (styles.css).
 */
export function AccountRegister({ planId, accountId }: { planId: string; accountId: string }) {
  const { data, fetchMore, loading, error } = useQuery(ACCOUNT_REGISTER, {
    variables: { planId, accountId, first: REGISTER_PAGE },
    notifyOnNetworkStatusChange: true,
  });
  const account = data?.plan?.account;
  if (!account)
    return (
      <section className="register">
        <p className="status">
          {loading ? 'Loading the register…' : `Cannot show this account. ${error?.message ?? ''}`}
        </p>
      </section>
    );
  const connection = account.transactions;
  return (
    <section className="register" data-testid="register" data-account-id={account.id}>
      <div className="register-head">
        <h2>{account.name}</h2>
        <p className="register-balance">
          Balance{' '}
          <strong className={account.balance < 0 ? 'negative' : undefined}>
            {account.balanceFormatted}
          </strong>
        </p>
      </div>
      <table className="transaction-table register-table">
        <thead>
          <tr>
            <th className="date">Date</th>
            <th className="payee">Payee</th>
            <th className="category">Category</th>
            <th className="memo">Memo</th>
            <th className="cleared" title="Cleared">
              <span aria-hidden="true">✓</span>
              <span className="visually-hidden">Cleared</span>
            </th>
            <th className="amount">Amount</th>
          </tr>
        </thead>
        <tbody>
          {connection.edges.map(({ node }) => (
            <tr key={node.id} data-testid="register-row" data-id={node.id}>
              <td className="date">
                <time dateTime={node.date}>{shortDate(node.date)}</time>
              </td>
              <td className="payee">{node.payeeName ?? '—'}</td>
              <td className="category">{node.categoryName ?? '—'}</td>
              <td className="memo">{node.memo ?? ''}</td>
              <td className="cleared" title={node.cleared}>
                {CLEARED_MARK[node.cleared]}
              </td>
              <td className={`amount ${node.amount < 0 ? 'negative' : ''}`}>
                {node.amountFormatted}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <Paging
        connection={connection}
        loading={loading}
        more={(after) => void fetchMore({ variables: { after } })}
        label="Load more"
        testId="register-paging"
      />
    </section>
  );
}
