import react from '@vitejs/plugin-react';
import { defineConfig, loadEnv } from 'vite';
import { gatewayAt } from './src/gateway.js';

/** The gateway `npm start` runs, where the dev server sends `/auth` and `/graphql`. */
const LOCAL_GATEWAY = 'http://localhost:4000';

/**
 * The example app's build. The client kit resolves to its sources through the repository's
 * tsconfig `paths`, as in the tests, so nothing needs building first; an app outside the
 * repository installs the built package instead.
 *
 * `VITE_GATEWAY_URL` names the gateway (checked here, so a bad value stops the build). Without
 * it the app calls its own origin, and the dev and preview servers pass `/auth` and `/graphql`
 * (WebSocket included) on to the local gateway: the page and the gateway share an origin, so
 * the session cookie is first-party and no CORS is involved.
 */
export default defineConfig(({ mode }) => {
  const configured = loadEnv(mode, import.meta.dirname, 'VITE_').VITE_GATEWAY_URL;
  gatewayAt(configured, LOCAL_GATEWAY);
  const proxy = configured
    ? undefined
    : {
        '/auth': { target: LOCAL_GATEWAY },
        '/graphql': { target: LOCAL_GATEWAY, ws: true },
      };
  return {
    root: import.meta.dirname,
    plugins: [react()],
    resolve: { tsconfigPaths: true },
    build: { outDir: 'dist', emptyOutDir: true },
    server: { port: 5173, proxy },
    preview: { proxy },
  };
});
