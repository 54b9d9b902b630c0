/**
 * The canonical dashboard operation, which GraphiQL opens with. The same text is
 * `bench/dashboard.graphql` (benchmarks and typed test documents use that file; a test keeps the
 * two equal); it lives here too so the compiled gateway reads nothing outside `dist/`.
 */
export const DASHBOARD_QUERY = `# The dashboard: one round-trip for a whole home screen.
query Dashboard($planId: PlanId! = "last-used") {
  plan(id: $planId) {
    id
    name
    currencyFormat {
      isoCode
    }
    month(month: "current") {
      id
      month
      toBeBudgeted
      toBeBudgetedFormatted
      ageOfMoney
    }
    accounts {
      id
      name
      type
      onBudget
      closed
      balance
      balanceFormatted
    }
    categoryGroups {
      id
      name
      hidden
      categories {
        id
        name
        budgeted
        activity
        balance
        balanceFormatted
      }
    }
    transactions(first: 50) {
      totalCount
      nodes {
        id
        date
        amount
        amountFormatted
        memo
        cleared
        approved
        account {
          id
          name
        }
        payee {
          id
          name
        }
        category {
          id
          name
        }
        subtransactions {
          id
          amount
          memo
          payee {
            id
            name
          }
          category {
            id
            name
          }
        }
      }
    }
  }
}
`;
