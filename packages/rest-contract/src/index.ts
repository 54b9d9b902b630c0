/**
 * The Plans REST interface (YNAB API v1) as the gateway and the sandbox share it: wire types,
 * the operation table and request building, plan ids, and money formatting.
 */
export * from './ids.js';
export * from './money.js';
export * from './routes.js';
export * from './types.js';
