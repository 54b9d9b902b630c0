/** What `Paging` reads of a connection. */
export interface PagedConnection {
  readonly edges: readonly unknown[];
  readonly totalCount: number;
  readonly pageInfo: { readonly endCursor?: string | null; readonly hasNextPage: boolean };
}

/**
 * "n of total" under a list, and the button that asks the connection's next page (the client
 * kit's relayStylePagination appends it to the cached list).
 */
export function Paging({
  connection,
  loading,
  more,
  label,
  testId,
}: {
  connection: PagedConnection;
  loading: boolean;
  more: (after: string | null | undefined) => void;
  label: string;
  testId?: string;
}) {
  const { endCursor, hasNextPage } = connection.pageInfo;
  return (
    <p className="paging" data-testid={testId}>
      {connection.edges.length} of {connection.totalCount}
      {hasNextPage && (
        <button type="button" disabled={loading} onClick={() => more(endCursor)}>
          {label}
        </button>
      )}
    </p>
  );
}
