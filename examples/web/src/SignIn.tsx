/** Why the sign-in screen shows: a first visit, a sign-out here, or a session that ended. */
export type SignedOutReason = 'new' | 'signedOut' | 'ended';

const MESSAGES: Record<SignedOutReason, string> = {
  new: 'Sign in to see your plan: its accounts, this month’s spending and your transactions.',
  signedOut: 'You signed out.',
  ended: 'Your session ended. Sign in again to carry on.',
};

/**
 * The sign-in screen: one link to the gateway's sign-in, which asks the person's consent at the
 * upstream and comes back here. The page never sees a password or a token.
 */
export function SignIn({ href, reason }: { href: string; reason: SignedOutReason }) {
  return (
    <main className="sign-in">
      <section className="card" data-testid="sign-in" data-reason={reason}>
        <img src="/favicon.svg" alt="" width={48} height={48} />
        <h1>Plans</h1>
        <p className="reason" role={reason === 'ended' ? 'alert' : undefined}>
          {MESSAGES[reason]}
        </p>
        <a className="button" href={href}>
          Sign in
        </a>
        <p className="fine">
          You are sent to your Plans account to allow this app in, then brought back here.
        </p>
      </section>
    </main>
  );
}
