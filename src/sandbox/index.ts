/** The REST sandbox: a self-contained server that behaves like the Plans REST interface. */

export type * from './core/api.js';
export { createManualClock, systemClock } from './core/clock.js';
export { createSandbox, DEMO_OAUTH_CLIENT, DEMO_READ_ONLY_TOKEN, DEMO_TOKEN } from './sandbox.js';
