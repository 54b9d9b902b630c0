import SchemaBuilder from '@pothos/core';
import ComplexityPlugin from '@pothos/plugin-complexity';
import DirectivesPlugin from '@pothos/plugin-directives';
import ErrorsPlugin from '@pothos/plugin-errors';
import FederationPlugin from '@pothos/plugin-federation';
import RelayPlugin from '@pothos/plugin-relay';
import type { GatewayContext } from './context.js';
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
    Milliunits: { Input: number; Output: number | bigint };
    PlanId: { Input: string; Output: string };
    MonthSelector: { Input: string; Output: string };
    JSON: { Input: unknown; Output: unknown };
  };
}>({
  defaultFieldNullability: false,
  // Directives and federation last: the federation plugin's keys travel as directives, which
  // the subgraph schema prints (`src/schema/subgraph.ts`); the graph's schema ignores them.
  plugins: [ComplexityPlugin, ErrorsPlugin, RelayPlugin, DirectivesPlugin, FederationPlugin],
  complexity: {
    // Prices only: the admission path (`src/admission/operation-limits.ts`) adds them
    // up over the whole operation, introspection included, and refuses it before execution.
    // The plugin's own check runs in root resolvers, which an introspection-only operation
    // never reaches.
    fieldComplexity: fieldCost,
    disabled: true,
  },
  relay: {
    // Ids are REST ids so they move freely between REST and GraphQL; no global Node ids.
    nodeQueryOptions: false,
    nodesQueryOptions: false,
    nodesOnConnection: { description: 'The items of this page.' },
    edgesFieldOptions: {
      nullable: false,
      description: 'The items of this page, each with its cursor.',
    },
    nodeFieldOptions: { nullable: false, description: 'The item.' },
    cursorFieldOptions: {
      description: 'Pass as `after` (or `before`) to get the items after (or before) this one.',
    },
    pageInfoFieldOptions: { description: 'Where this page sits in the list.' },
    pageInfoTypeOptions: {
      description: 'Where a page sits in its list, and the cursors to fetch the pages around it.',
    },
    hasNextPageFieldOptions: { description: 'More items follow this page.' },
    hasPreviousPageFieldOptions: { description: 'Items come before this page.' },
    startCursorFieldOptions: {
      description: 'The cursor of the first item of the page; null when the page is empty.',
    },
    endCursorFieldOptions: {
      description: 'The cursor of the last item of the page; null when the page is empty.',
    },
    firstArgOptions: {
      description: 'Page forward: at most this many items (up to 500; default 50).',
    },
    afterArgOptions: { description: 'Page forward: the items after this cursor.' },
    lastArgOptions: { description: 'Page backward: at most this many items (up to 500).' },
    beforeArgOptions: { description: 'Page backward: the items before this cursor.' },
  },
  errors: {
    defaultTypes: [],
  },
});
