import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/**
 * The example app's build. The client kit resolves to its sources through the repository's
 * tsconfig `paths`, as in the tests, so nothing needs building first; an app outside the
 * repository installs the built package instead.
 */
export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  resolve: { tsconfigPaths: true },
  build: { outDir: 'dist', emptyOutDir: true },
  server: { port: 5173 },
});
