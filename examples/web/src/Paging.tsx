/**
 * "n of total" under a list, and the button that asks the connection's next page (the client
 * kit's relayStylePagination appends it to the cached list).
 */
export function Paging({
  shown,
  total,
  endCursor,
  hasNextPage,
  loading,
  more,
  label,
  testId,
}: {
  shown: number;
  total: number;
  endCursor: string | null | undefined;
  hasNextPage: boolean;
  loading: boolean;
  more: (after: string | null | undefined) => void;
  label: string;
  testId?: string;
}) {
  return (
    <p className="paging" data-testid={testId}>
      {shown} of {total}
      {hasNextPage && (
        <button type="button" disabled={loading} onClick={() => more(endCursor)}>
          {label}
        </button>
      )}
    </p>
  );
}
