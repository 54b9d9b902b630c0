/**
 * The Plans REST interface (YNAB API v1) as the gateway and the sandbox share it: wire types,
 * the operation table and request building, plan ids, and money formatting.
 */
/** The release of the OpenAPI description the contract follows (its `info.version`). */

export * from './exact-json.js';
export { SPECIFICATION_VERSION } from './generated/operations.js';
export * from './ids.js';
export * from './money.js';
export * from './routes.js';
export * from './types.js';
