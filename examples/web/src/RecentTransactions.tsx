import { useQuery } from '@apollo/client/react';
import { shortDate } from './dates.js';
import { RECENT_TRANSACTIONS } from './operations.js';
import { Paging } from './Paging.js';

const PAGE = 10;

/**
 * The newest transactions, a page at a time (the client kit's relayStylePagination merges them).
 * A table on wide screens; on a phone each row folds into two lines (styles.css).
 */
export function RecentTransactionsList({ planId }: { planId: string }) {
  const { data, fetchMore, loading } = useQuery(RECENT_TRANSACTIONS, {
    variables: { planId, first: PAGE },
    notifyOnNetworkStatusChange: true,
  });
  const connection = data?.plan?.transactions;
  if (!connection) return <p className="status">{loading ? 'Loading…' : 'No transactions.'}</p>;
  return (
    <>
      <table className="transaction-table">
        <thead>
          <tr>
            <th className="date">Date</th>
            <th className="payee">Payee</th>
            <th className="category">Category</th>
            <th className="account">Account</th>
            <th className="amount">Amount</th>
          </tr>
        </thead>
        <tbody>
          {connection.edges.map(({ node }) => (
            <tr key={node.id} data-testid="transaction">
              <td className="date">
                <time dateTime={node.date}>{shortDate(node.date)}</time>
              </td>
              <td className="payee">{node.payeeName ?? '—'}</td>
              <td className="category">{node.categoryName ?? '—'}</td>
              <td className="account">{node.account.name}</td>
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
        label="Show more"
        testId="recent-paging"
      />
    </>
  );
}
