/** Milliunits as a plain amount with two decimals (the plan's format is in `...Formatted`). */
export function amount(milliunits: number): string {
  return (milliunits / 1000).toLocaleString('en-US', {
    minimumFractionDigits: 2,
    maximumFractionDigits: 2,
  });
}
