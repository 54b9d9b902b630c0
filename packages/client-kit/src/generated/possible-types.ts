
      export type PossibleTypesResultData = {
  "possibleTypes": {
    "ChangesResult": [
      "ChangesPage",
      "ReloadRequired"
    ],
    "CreateAccountResult": [
      "CreateAccountPayload",
      "NotFoundError",
      "ReadOnlyScopeError",
      "ValidationError"
    ],
    "CreateCategoryGroupResult": [
      "CreateCategoryGroupPayload",
      "NotFoundError",
      "ReadOnlyScopeError",
      "ValidationError"
    ],
    "CreateCategoryResult": [
      "CreateCategoryPayload",
      "NotFoundError",
      "ReadOnlyScopeError",
      "ValidationError"
    ],
    "CreatePayeeResult": [
      "CreatePayeePayload",
      "NotFoundError",
      "ReadOnlyScopeError",
      "ValidationError"
    ],
    "CreateScheduledTransactionResult": [
      "CreateScheduledTransactionPayload",
      "NotFoundError",
      "ReadOnlyScopeError",
      "ValidationError"
    ],
    "CreateTransactionResult": [
      "CreateTransactionPayload",
      "DuplicateImportIdError",
      "NotFoundError",
      "ReadOnlyScopeError",
      "ValidationError"
    ],
    "CreateTransactionsResult": [
      "CreateTransactionsPayload",
      "NotFoundError",
      "ReadOnlyScopeError",
      "ValidationError"
    ],
    "DeleteScheduledTransactionResult": [
      "DeleteScheduledTransactionPayload",
      "NotFoundError",
      "ReadOnlyScopeError",
      "ValidationError"
    ],
    "DeleteTransactionResult": [
      "DeleteTransactionPayload",
      "NotFoundError",
      "ReadOnlyScopeError",
      "ValidationError"
    ],
    "Error": [
      "DuplicateImportIdError",
      "NotFoundError",
      "ReadOnlyScopeError",
      "ReloadRequired",
      "ValidationError"
    ],
    "ImportTransactionsResult": [
      "ImportTransactionsPayload",
      "NotFoundError",
      "ReadOnlyScopeError",
      "ValidationError"
    ],
    "Node": [
      "Account",
      "Category",
      "CategoryGroup",
      "HybridTransaction",
      "MoneyMovement",
      "MoneyMovementGroup",
      "Month",
      "MonthCategory",
      "Payee",
      "PayeeLocation",
      "Plan",
      "ScheduledSubTransaction",
      "ScheduledTransaction",
      "SubTransaction",
      "Transaction",
      "User"
    ],
    "SetCategoryTargetResult": [
      "NotFoundError",
      "ReadOnlyScopeError",
      "SetCategoryTargetPayload",
      "ValidationError"
    ],
    "UpdateCategoryGroupResult": [
      "NotFoundError",
      "ReadOnlyScopeError",
      "UpdateCategoryGroupPayload",
      "ValidationError"
    ],
    "UpdateCategoryResult": [
      "NotFoundError",
      "ReadOnlyScopeError",
      "UpdateCategoryPayload",
      "ValidationError"
    ],
    "UpdateMonthCategoryResult": [
      "NotFoundError",
      "ReadOnlyScopeError",
      "UpdateMonthCategoryPayload",
      "ValidationError"
    ],
    "UpdatePayeeResult": [
      "NotFoundError",
      "ReadOnlyScopeError",
      "UpdatePayeePayload",
      "ValidationError"
    ],
    "UpdateScheduledTransactionResult": [
      "NotFoundError",
      "ReadOnlyScopeError",
      "UpdateScheduledTransactionPayload",
      "ValidationError"
    ],
    "UpdateTransactionResult": [
      "NotFoundError",
      "ReadOnlyScopeError",
      "UpdateTransactionPayload",
      "ValidationError"
    ],
    "UpdateTransactionsResult": [
      "NotFoundError",
      "ReadOnlyScopeError",
      "UpdateTransactionsPayload",
      "ValidationError"
    ]
  }
};
      const result: PossibleTypesResultData = {
  "possibleTypes": {
    "ChangesResult": [
      "ChangesPage",
      "ReloadRequired"
    ],
    "CreateAccountResult": [
      "CreateAccountPayload",
      "NotFoundError",
      "ReadOnlyScopeError",
      "ValidationError"
    ],
    "CreateCategoryGroupResult": [
      "CreateCategoryGroupPayload",
      "NotFoundError",
      "ReadOnlyScopeError",
      "ValidationError"
    ],
    "CreateCategoryResult": [
      "CreateCategoryPayload",
      "NotFoundError",
      "ReadOnlyScopeError",
      "ValidationError"
    ],
    "CreatePayeeResult": [
      "CreatePayeePayload",
      "NotFoundError",
      "ReadOnlyScopeError",
      "ValidationError"
    ],
    "CreateScheduledTransactionResult": [
      "CreateScheduledTransactionPayload",
      "NotFoundError",
      "ReadOnlyScopeError",
      "ValidationError"
    ],
    "CreateTransactionResult": [
      "CreateTransactionPayload",
      "DuplicateImportIdError",
      "NotFoundError",
      "ReadOnlyScopeError",
      "ValidationError"
    ],
    "CreateTransactionsResult": [
      "CreateTransactionsPayload",
      "NotFoundError",
      "ReadOnlyScopeError",
      "ValidationError"
    ],
    "DeleteScheduledTransactionResult": [
      "DeleteScheduledTransactionPayload",
      "NotFoundError",
      "ReadOnlyScopeError",
      "ValidationError"
    ],
    "DeleteTransactionResult": [
      "DeleteTransactionPayload",
      "NotFoundError",
      "ReadOnlyScopeError",
      "ValidationError"
    ],
    "Error": [
      "DuplicateImportIdError",
      "NotFoundError",
      "ReadOnlyScopeError",
      "ReloadRequired",
      "ValidationError"
    ],
    "ImportTransactionsResult": [
      "ImportTransactionsPayload",
      "NotFoundError",
      "ReadOnlyScopeError",
      "ValidationError"
    ],
    "Node": [
      "Account",
      "Category",
      "CategoryGroup",
      "HybridTransaction",
      "MoneyMovement",
      "MoneyMovementGroup",
      "Month",
      "MonthCategory",
      "Payee",
      "PayeeLocation",
      "Plan",
      "ScheduledSubTransaction",
      "ScheduledTransaction",
      "SubTransaction",
      "Transaction",
      "User"
    ],
    "SetCategoryTargetResult": [
      "NotFoundError",
      "ReadOnlyScopeError",
      "SetCategoryTargetPayload",
      "ValidationError"
    ],
    "UpdateCategoryGroupResult": [
      "NotFoundError",
      "ReadOnlyScopeError",
      "UpdateCategoryGroupPayload",
      "ValidationError"
    ],
    "UpdateCategoryResult": [
      "NotFoundError",
      "ReadOnlyScopeError",
      "UpdateCategoryPayload",
      "ValidationError"
    ],
    "UpdateMonthCategoryResult": [
      "NotFoundError",
      "ReadOnlyScopeError",
      "UpdateMonthCategoryPayload",
      "ValidationError"
    ],
    "UpdatePayeeResult": [
      "NotFoundError",
      "ReadOnlyScopeError",
      "UpdatePayeePayload",
      "ValidationError"
    ],
    "UpdateScheduledTransactionResult": [
      "NotFoundError",
      "ReadOnlyScopeError",
      "UpdateScheduledTransactionPayload",
      "ValidationError"
    ],
    "UpdateTransactionResult": [
      "NotFoundError",
      "ReadOnlyScopeError",
      "UpdateTransactionPayload",
      "ValidationError"
    ],
    "UpdateTransactionsResult": [
      "NotFoundError",
      "ReadOnlyScopeError",
      "UpdateTransactionsPayload",
      "ValidationError"
    ]
  }
};
      export default result;
    