import { useQuery, useSubscription } from '@apollo/client/react';
import { useState } from 'react';
import { Accounts } from './Accounts.js';
import { AddTransactionForm } from './AddTransactionForm.js';
import { CategoryChart } from './CategoryChart.js';
import { isSpendingCategory } from './categories.js';
import { DASHBOARD, PLAN_CHANGED } from './operations.js';
import { RecentTransactionsList } from './RecentTransactions.js';

/** One screen: the plan's accounts, this month's categories charted, transactions, a form. */
export function App() {
  const { data, error, loading } = useQuery(DASHBOARD);
  const plan = data?.plan;
  if (loading && !plan) return <p className="status">Loading the plan…</p>;
  if (error || !plan) return <p className="status error">Cannot load the plan: {error?.message}</p>;
  return (
    <main>
      <header>
        <h1>{plan.name}</h1>
        {plan.month && (
          <p className="ready" data-testid="ready-to-assign">
            Ready to Assign <strong>{plan.month.toBeBudgetedFormatted}</strong>
          </p>
        )}
        <LiveStatus planId={plan.id} />
      </header>
      <section className="accounts">
        <h2>Accounts</h2>
        <Accounts accounts={plan.accounts} />
      </section>
      <section className="chart">
        <h2>This month: assigned and spent</h2>
        {plan.month && <CategoryChart categories={plan.month.categories} />}
      </section>
      <section className="transactions">
        <h2>Recent transactions</h2>
        <RecentTransactionsList planId={plan.id} />
      </section>
      <section className="add">
        <h2>Add a transaction</h2>
        <AddTransactionForm
          planId={plan.id}
          accounts={plan.accounts.filter((account) => !account.closed)}
          categories={(plan.month?.categories ?? []).filter(isSpendingCategory)}
        />
      </section>
    </main>
  );
}

/**
 * The subscription: its events carry the changed rows with their ids, so the cache (and every
 * panel) takes them as they come; the transaction list is read again when transactions changed.
 */
function LiveStatus({ planId }: { planId: string }) {
  const [events, setEvents] = useState(0);
  const { error } = useSubscription(PLAN_CHANGED, {
    variables: { planId },
    onData: ({ client, data }) => {
      setEvents((count) => count + 1);
      if ((data.data?.planChanged.transactions.length ?? 0) > 0)
        void client.refetchQueries({ include: ['RecentTransactions'] });
    },
  });
  return (
    <p className={`live ${error ? 'off' : 'on'}`} data-testid="live" data-events={events}>
      {error
        ? `Live updates off: ${error.message}`
        : `Live · ${events} update${events === 1 ? '' : 's'}`}
    </p>
  );
}
