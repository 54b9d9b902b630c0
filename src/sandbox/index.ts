/** The REST sandbox: a self-contained server that behaves like the Plans REST interface. */

export type * from './api.js';
export { createManualClock, systemClock } from './clock.js';
export { createSandbox, DEMO_OAUTH_CLIENT, DEMO_READ_ONLY_TOKEN, DEMO_TOKEN } from './sandbox.js';
