import type { Account } from './operations.js';

export function Accounts({ accounts }: { accounts: Account[] }) {
  const open = accounts.filter((account) => !account.closed);
  return (
    <ul className="account-list">
      {open.map((account) => (
        <li key={account.id} data-testid="account" data-id={account.id}>
          <span className="name">{account.name}</span>
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
