import { type MouseEvent, type ReactNode, useEffect, useState } from 'react';

/** The app's screens: Home (the overview), Budget (every category), an account's register. */
export type Screen =
  | { readonly kind: 'home' }
  | { readonly kind: 'budget' }
  | { readonly kind: 'account'; readonly accountId: string };

/**
 * Where a screen lives: in the URL's hash, so Back, reloads and the offline shell keep it. Home
 * is the page's own address, without a hash (what sign-in comes back to).
 */
export function screenHref(screen: Screen): string {
  switch (screen.kind) {
    case 'home':
      return window.location.pathname + window.location.search;
    case 'budget':
      return '#/budget';
    case 'account':
      return `#/accounts/${encodeURIComponent(screen.accountId)}`;
  }
}

export function screenOf(hash: string): Screen {
  if (hash === '#/budget') return { kind: 'budget' };
  const account = /^#\/accounts\/([^/]+)$/.exec(hash);
  if (account) return { kind: 'account', accountId: decodeURIComponent(account[1]!) };
  return { kind: 'home' };
}

/** Fired on the window when a link of this app moves to another screen (pushState fires nothing). */
const MOVED = 'plans-gateway:screen';

/** The screen the URL names, following links, Back and Forward. */
export function useScreen(): Screen {
  const [screen, setScreen] = useState(() => screenOf(window.location.hash));
  useEffect(() => {
    const follow = () => setScreen(screenOf(window.location.hash));
    for (const event of ['hashchange', 'popstate', MOVED]) window.addEventListener(event, follow);
    return () => {
      for (const event of ['hashchange', 'popstate', MOVED])
        window.removeEventListener(event, follow);
    };
  }, []);
  return screen;
}

/** A link to a screen: an ordinary link (a new tab opens it too), moved to without a reload. */
export function ScreenLink(props: {
  to: Screen;
  className?: string;
  current?: boolean;
  children: ReactNode;
}) {
  const href = screenHref(props.to);
  const go = (event: MouseEvent) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return;
    event.preventDefault();
    window.history.pushState(null, '', href);
    window.dispatchEvent(new Event(MOVED));
  };
  return (
    <a
      href={href}
      className={props.className}
      aria-current={props.current ? 'page' : undefined}
      onClick={go}
    >
      {props.children}
    </a>
  );
}
