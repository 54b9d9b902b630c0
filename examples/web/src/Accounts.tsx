import type { Account } from './operations.js';
import { ScreenLink } from './screens.js';

/** The open accounts and their balances; each name opens its register. */
export function Accounts({ accounts, current }: { accounts: Account[]; current?: string }) {
  const open = accounts.filter((account) => !account.closed);
  return (
    <ul className="account-list">
      {open.map((account) => (
        <li
          key={account.id}
          data-testid="account"
          data-id={account.id}
          className={account.id === current ? 'current' : undefined}
        >
          <ScreenLink
            className="name"
            to={{ kind: 'account', accountId: account.id }}
            current={account.id === current}
          >
            {account.name}
          </ScreenLink>
          <span
            className={`balance ${account.balance < 0 ? 'negative' : ''}`}
            data-testid="account-balance"
            data-milliunits={account.balance}
          >
            {account.balanceFormatted}
          </span>
        </li>
      ))}
    </ul>
  );
}
