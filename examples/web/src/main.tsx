import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { type Gateway, gatewayAt } from './gateway.js';
import { Root } from './Root.js';
import './styles.css';

const element = document.getElementById('root');
if (!element) throw new Error('index.html has no #root');
const root = createRoot(element);

let gateway: Gateway | Error;
try {
  gateway = gatewayAt(import.meta.env.VITE_GATEWAY_URL, window.location.origin);
} catch (error) {
  gateway = error instanceof Error ? error : new Error(String(error));
}
// The app shell, kept for opening offline (public/sw.js); built apps only: the dev server's
// modules change as you edit them.
if (import.meta.env.PROD && 'serviceWorker' in navigator)
  void navigator.serviceWorker.register('/sw.js').catch(() => {
    // No shell offline (e.g. an insecure origin): the app still works online.
  });

root.render(
  <StrictMode>
    {gateway instanceof Error ? (
      <p className="status error" role="alert">
        {gateway.message}
      </p>
    ) : (
      <Root gateway={gateway} />
    )}
  </StrictMode>,
);
