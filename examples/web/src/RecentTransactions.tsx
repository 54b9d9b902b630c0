import { useQuery } from '@apollo/client/react';
import { RECENT_TRANSACTIONS } from './operations.js';

const PAGE = 10;

/** The newest transactions, a page at a time (the client kit's relayStylePagination merges them). */
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
            <th>Date</th>
            <th>Payee</th>
            <th>Category</th>
            <th>Account</th>
            <th className="amount">Amount</th>
          </tr>
        </thead>
        <tbody>
          {connection.edges.map(({ node }) => (
            <tr key={node.id} data-testid="transaction">
              <td>{node.date}</td>
              <td>{node.payeeName ?? '—'}</td>
              <td>{node.categoryName ?? '—'}</td>
              <td>{node.account.name}</td>
              <td className={`amount ${node.amount < 0 ? 'negative' : ''}`}>
                {node.amountFormatted}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="paging">
        {connection.edges.length} of {connection.totalCount}
        {connection.pageInfo.hasNextPage && (
          <button
            type="button"
            disabled={loading}
            onClick={() => void fetchMore({ variables: { after: connection.pageInfo.endCursor } })}
          >
            Show more
          </button>
        )}
      </p>
    </>
  );
}
