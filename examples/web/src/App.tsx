import { useApolloClient, useQuery, useSubscription } from '@apollo/client/react';
import { resumer } from '@plans-gateway/client-kit/apollo';
import { resumeOnReconnect } from '@plans-gateway/client-kit/offline';
import { type ReactNode, useEffect, useMemo, useState } from 'react';
import { AccountRegister } from './AccountRegister.js';
import { Accounts } from './Accounts.js';
import { AddTransactionForm } from './AddTransactionForm.js';
import { BudgetTable } from './BudgetTable.js';
import { CategoryChart } from './CategoryChart.js';
import { isSpendingCategory } from './categories.js';
import { EditMemoForm } from './EditMemoForm.js';
import { PendingWrites, useCursors, useOutbox } from './Outbox.js';
import { DASHBOARD, PLAN_CHANGED, RESUME_CHANGES } from './operations.js';
import { RecentTransactionsList } from './RecentTransactions.js';
import { type Screen, ScreenLink, useScreen } from './screens.js';
import type { Plan } from './session.js';

/**
 * The plan's screens: Home (accounts, this month's categories charted, the newest transactions,
 * the forms), Budget (every category of the month) and each account's register (its
 * transactions, 50 at a time). The session's plans come from the gateway; with several, a
 * chooser switches between them.
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
  const resume = useResume(props.planId);
  const screen = useScreen();
  const plan = data?.plan;
  if (loading && !plan) return <p className="status">Loading the plan…</p>;
  if (error || !plan) return <p className="status error">Cannot load the plan: {error?.message}</p>;
  const header = (
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
      <ScreenLinks screen={screen} />
      {plan.month && (
        <p className="ready" data-testid="ready-to-assign">
          Ready to Assign <strong>{plan.month.toBeBudgetedFormatted}</strong>
        </p>
      )}
      <LiveStatus planId={plan.id} onTransactions={resume} />
    </Header>
  );
  const current = screen.kind === 'account' ? screen.accountId : undefined;
  const accounts = (
    <section className="accounts">
      <h2>Accounts</h2>
      <Accounts accounts={plan.accounts} current={current} />
    </section>
  );
  if (screen.kind !== 'home')
    return (
      <main className="dashboard one-screen">
        {header}
        {accounts}
        {screen.kind === 'budget' ? (
          plan.month && <BudgetTable month={plan.month} />
        ) : (
          <AccountRegister key={screen.accountId} planId={plan.id} accountId={screen.accountId} />
        )}
      </main>
    );
  return (
    <main className="dashboard">
      {header}
      {accounts}
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

/** Home and Budget; an account's register opens from its name in the account list. */
function ScreenLinks({ screen }: { screen: Screen }) {
  const links: { label: string; to: Screen }[] = [
    { label: 'Home', to: { kind: 'home' } },
    { label: 'Budget', to: { kind: 'budget' } },
  ];
  return (
    <nav className="screens" aria-label="Screens">
      {links.map(({ label, to }) => (
        <ScreenLink key={label} to={to} current={screen.kind === to.kind}>
          {label}
        </ScreenLink>
      ))}
    </nav>
  );
}

/**
 * Offline first: on start and whenever the browser is back online, the queued writes go out (in
 * order, once each), then one `changes` request brings the cache up to what changed elsewhere
 * meanwhile (the client kit applies it, new and moved transactions placed in Home's list and
 * the registers without reading them again). A sent write resumes too: its row takes its place
 * in the lists the same way, and the lists' counts stay the gateway's (a list read again after
 * the stored cursor would count that row twice on the next resume). Answers the resume, for the
 * live updates to call.
 */
function useResume(planId: string): () => Promise<unknown> {
  const client = useApolloClient();
  const queue = useOutbox();
  const cursors = useCursors();
  // The app's own selection: what its screens show of each changed row, nothing more. One
  // resumer: calls made while one waits for its turn share it (client kit, one-at-a-time.ts).
  const resume = useMemo(
    () => resumer(client, { planId, cursors, query: RESUME_CHANGES }),
    [client, cursors, planId],
  );
  useEffect(() => {
    const stopSent = queue.subscribe((event) => {
      if (event.kind === 'sent') void resume();
    });
    const stopResume = resumeOnReconnect(async () => {
      await queue.flush();
      await resume();
    }, window);
    return () => {
      stopSent();
      stopResume();
    };
  }, [queue, resume]);
  return resume;
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
 * panel) takes them as they come; when transactions changed, a resume places them in the lists
 * (one small request, from the replica the event came from: no upstream call).
 */
function LiveStatus({
  planId,
  onTransactions,
}: {
  planId: string;
  onTransactions: () => Promise<unknown>;
}) {
  const [events, setEvents] = useState(0);
  const { error } = useSubscription(PLAN_CHANGED, {
    variables: { planId },
    onData: ({ data }) => {
      setEvents((count) => count + 1);
      const change = data.data?.planChanged;
      if (change && change.transactions.length + change.deleted.transactionIds.length > 0)
        void onTransactions();
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
