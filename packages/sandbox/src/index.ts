/** The REST sandbox: a self-contained server that behaves like the Plans REST interface. */

export type * from './core/api.js';
export { createManualClock } from './core/clock.js';
export { createSandbox } from './sandbox.js';
