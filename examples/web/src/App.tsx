import { useApolloClient, useQuery, useSubscription } from '@apollo/client/react';
import { resumer } from '@plans-gateway/client-kit/apollo';
import { resumeOnReconnect } from '@plans-gateway/client-kit/offline';
import { type ReactNode, useEffect, useState } from 'react';
import { Accounts } from './Accounts.js';
import { AddTransactionForm } from './AddTransactionForm.js';
import { CategoryChart } from './CategoryChart.js';
import { isSpendingCategory } from './categories.js';
import { EditMemoForm } from './EditMemoForm.js';
import { PendingWrites, useCursors, useOutbox } from './Outbox.js';
import { DASHBOARD, PLAN_CHANGED } from './operations.js';
import { RecentTransactionsList } from './RecentTransactions.js';
import type { Plan } from './session.js';

/**
 * One screen: the plan's accounts, this month's categories charted, transactions, a form. The
 * session's plans come from the gateway; with several, a chooser switches between them.
 */
export function App({
  plans,
  onSignOut,
}: {
  plans: readonly Plan[];
  onSignOut: () => Promise<void>;
}) {
  const [planId, setPlanId] = useState(plans[0]?.id ?? null);
  if (planId === null)
    return (
      <main className="dashboard">
        <Header title={<h1>No plans</h1>} onSignOut={onSignOut} />
        <p className="status">This account has no plans yet.</p>
      </main>
    );
  return (
    <Dashboard
      key={planId}
      planId={planId}
      plans={plans}
      onPlan={setPlanId}
      onSignOut={onSignOut}
    />
  );
}

function Dashboard(props: {
  planId: string;
  plans: readonly Plan[];
  onPlan: (id: string) => void;
  onSignOut: () => Promise<void>;
}) {
  const { data, error, loading } = useQuery(DASHBOARD, { variables: { planId: props.planId } });
  useResume(props.planId);
  const plan = data?.plan;
  if (loading && !plan) return <p className="status">Loading the plan…</p>;
  if (error || !plan) return <p className="status error">Cannot load the plan: {error?.message}</p>;
  return (
    <main className="dashboard">
      <Header
        onSignOut={props.onSignOut}
        title={
          props.plans.length > 1 ? (
            <>
              <h1 className="visually-hidden">{plan.name}</h1>
              <select
                className="plan-picker"
                aria-label="Plan"
                value={props.planId}
                onChange={(event) => props.onPlan(event.target.value)}
              >
                {props.plans.map((choice) => (
                  <option key={choice.id} value={choice.id}>
                    {choice.name}
                  </option>
                ))}
              </select>
            </>
          ) : (
            <h1>{plan.name}</h1>
          )
        }
      >
        {plan.month && (
          <p className="ready" data-testid="ready-to-assign">
            Ready to Assign <strong>{plan.month.toBeBudgetedFormatted}</strong>
          </p>
        )}
        <LiveStatus planId={plan.id} />
      </Header>
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
        <PendingWrites />
        <RecentTransactionsList planId={plan.id} />
      </section>
      <section className="add">
        <h2>Add a transaction</h2>
        <AddTransactionForm
          planId={plan.id}
          accounts={plan.accounts.filter((account) => !account.closed)}
          categories={(plan.month?.categories ?? []).filter(isSpendingCategory)}
        />
        <h2>Edit a memo</h2>
        <EditMemoForm planId={plan.id} />
      </section>
    </main>
  );
}

/**
 * Offline first: on start and whenever the browser is back online, the queued writes go out (in
 * order, once each), then one `changes` request brings the cache up to what changed elsewhere
 * meanwhile (the client kit applies it). A sent write reads the transaction list again.
 */
function useResume(planId: string): void {
  const client = useApolloClient();
  const queue = useOutbox();
  const cursors = useCursors();
  useEffect(() => {
    const resume = resumer(client, { planId, cursors });
    const stopSent = queue.subscribe((event) => {
      if (event.kind === 'sent') void client.refetchQueries({ include: ['RecentTransactions'] });
    });
    const stopResume = resumeOnReconnect(async () => {
      await queue.flush();
      await resume();
    }, window);
    return () => {
      stopSent();
      stopResume();
    };
  }, [client, queue, cursors, planId]);
}

/** The plan's title and figures, and the sign-out (which says so when it fails). */
function Header(props: { title: ReactNode; children?: ReactNode; onSignOut: () => Promise<void> }) {
  const { title, children, onSignOut } = props;
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const signOut = async () => {
    setBusy(true);
    setFailure(null);
    try {
      await onSignOut();
    } catch (error) {
      setFailure(`Not signed out: ${(error as Error).message}`);
      setBusy(false);
    }
  };
  return (
    <header>
      <div className="title">{title}</div>
      <button type="button" className="sign-out" disabled={busy} onClick={() => void signOut()}>
        Sign out
      </button>
      {children}
      {failure && (
        <p className="message error" role="alert">
          {failure}
        </p>
      )}
    </header>
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
