/**
 * A Relay fragment: `@refetchable` needs `Node` and `node(id:)`, `@connection` a cursor
 * connection. relay-compiler reads it against schema.graphql (`test/clients/relay.test.ts`); in an
 * app, `graphql` comes from react-relay and Relay's babel plugin replaces it.
 */
declare function graphql(text: TemplateStringsArray): unknown;

export const accountTransactionsFragment = graphql`
  fragment accountTransactions_account on Account
  @refetchable(queryName: "AccountTransactionsPaginationQuery")
  @argumentDefinitions(count: { type: "Int", defaultValue: 20 }, cursor: { type: "String" }) {
    id
    name
    balanceFormatted
    transactions(first: $count, after: $cursor) @connection(key: "accountTransactions_transactions") {
      edges {
        node {
          id
          date
          amountFormatted
          payee {
            id
            name
          }
        }
      }
    }
  }
`;
