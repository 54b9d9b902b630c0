
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
      "ValidationError",
      "WriteConflict"
    ],
    "DeleteTransactionResult": [
      "DeleteTransactionPayload",
      "NotFoundError",
      "ReadOnlyScopeError",
      "ValidationError",
      "WriteConflict"
    ],
    "Error": [
      "DuplicateImportIdError",
      "NotFoundError",
      "ReadOnlyScopeError",
      "ReloadRequired",
      "ValidationError",
      "WriteConflict"
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
      "ValidationError",
      "WriteConflict"
    ],
    "UpdateMonthCategoryResult": [
      "NotFoundError",
      "ReadOnlyScopeError",
      "UpdateMonthCategoryPayload",
      "ValidationError",
      "WriteConflict"
    ],
    "UpdatePayeeResult": [
      "NotFoundError",
      "ReadOnlyScopeError",
      "UpdatePayeePayload",
      "ValidationError",
      "WriteConflict"
    ],
    "UpdateScheduledTransactionResult": [
      "NotFoundError",
      "ReadOnlyScopeError",
      "UpdateScheduledTransactionPayload",
      "ValidationError",
      "WriteConflict"
    ],
    "UpdateTransactionResult": [
      "NotFoundError",
      "ReadOnlyScopeError",
      "UpdateTransactionPayload",
      "ValidationError",
      "WriteConflict"
    ],
    "UpdateTransactionsResult": [
      "NotFoundError",
      "ReadOnlyScopeError",
      "UpdateTransactionsPayload",
      "ValidationError",
      "WriteConflict"
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
      "ValidationError",
      "WriteConflict"
    ],
    "DeleteTransactionResult": [
      "DeleteTransactionPayload",
      "NotFoundError",
      "ReadOnlyScopeError",
      "ValidationError",
      "WriteConflict"
    ],
    "Error": [
      "DuplicateImportIdError",
      "NotFoundError",
      "ReadOnlyScopeError",
      "ReloadRequired",
      "ValidationError",
      "WriteConflict"
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
      "ValidationError",
      "WriteConflict"
    ],
    "UpdateMonthCategoryResult": [
      "NotFoundError",
      "ReadOnlyScopeError",
      "UpdateMonthCategoryPayload",
      "ValidationError",
      "WriteConflict"
    ],
    "UpdatePayeeResult": [
      "NotFoundError",
      "ReadOnlyScopeError",
      "UpdatePayeePayload",
      "ValidationError",
      "WriteConflict"
    ],
    "UpdateScheduledTransactionResult": [
      "NotFoundError",
      "ReadOnlyScopeError",
      "UpdateScheduledTransactionPayload",
      "ValidationError",
      "WriteConflict"
    ],
    "UpdateTransactionResult": [
      "NotFoundError",
      "ReadOnlyScopeError",
      "UpdateTransactionPayload",
      "ValidationError",
      "WriteConflict"
    ],
    "UpdateTransactionsResult": [
      "NotFoundError",
      "ReadOnlyScopeError",
      "UpdateTransactionsPayload",
      "ValidationError",
      "WriteConflict"
    ]
  }
};
      export default result;
    