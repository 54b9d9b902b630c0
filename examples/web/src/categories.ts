/** Categories a purchase goes to (not Ready to Assign, not credit card payments, not hidden). */
export function isSpendingCategory(category: { hidden: boolean; categoryGroupName: string }) {
  return (
    !category.hidden &&
    !/^(internal master category|credit card payments)$/i.test(category.categoryGroupName)
  );
}
