import SchemaBuilder from '@pothos/core';
import ComplexityPlugin from '@pothos/plugin-complexity';
import ErrorsPlugin from '@pothos/plugin-errors';
import RelayPlugin from '@pothos/plugin-relay';
import type { GatewayContext } from '../server/context.js';
import { fieldCost } from './cost.js';

export const builder = new SchemaBuilder<{
  Context: GatewayContext;
  // Non-null unless a field says `nullable: true`: REST guarantees most values, and clients
  // should not have to null-check what cannot be null.
  DefaultFieldNullability: false;
  DefaultEdgesNullability: false;
  DefaultNodeNullability: false;
  // Every connection of the graph counts its matches; the relay plugin types each connection's
  // shape with this, so a `totalCount` field reads it and every connection resolver returns it.
  Connection: { totalCount: number };
  Scalars: {
    ID: { Input: string; Output: string };
    Date: { Input: string; Output: string };
    DateTime: { Input: Date; Output: Date | string };
    UUID: { Input: string; Output: string };
    SafeInt: { Input: number; Output: number };
    Latitude: { Input: number; Output: number | string };
    Longitude: { Input: number; Output: number | string };
    Milliunits: { Input: number; Output: number };
    PlanId: { Input: string; Output: string };
    MonthSelector: { Input: string; Output: string };
  };
}>({
  defaultFieldNullability: false,
  plugins: [ComplexityPlugin, ErrorsPlugin, RelayPlugin],
  complexity: {
    // Prices only: `useOperationLimits` (src/server/plugins) adds them up over the whole
    // operation, introspection included, and refuses it before execution. The plugin's own check
    // runs in root resolvers, which an introspection-only operation never reaches.
    fieldComplexity: fieldCost,
    disabled: true,
  },
  relay: {
    // Ids are REST ids so they move freely between REST and GraphQL; no global Node ids.
    nodeQueryOptions: false,
    nodesQueryOptions: false,
    nodesOnConnection: true,
    edgesFieldOptions: { nullable: false },
    nodeFieldOptions: { nullable: false },
  },
  errors: {
    defaultTypes: [],
  },
});
