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
// The app shell, kept for opening offline (public/sw.js); built apps only (no `import.meta.hot`):
// the dev server's modules change as you edit them. Without it (e.g. an insecure origin) the app
// still works online, but does not open offline.
if (!import.meta.hot && 'serviceWorker' in navigator)
  navigator.serviceWorker
    .register('/sw.js')
    .catch((error: unknown) => console.warn(`The app will not open offline: ${error}`));

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
