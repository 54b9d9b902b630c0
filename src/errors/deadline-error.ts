/** The operation's deadline passed before the upstream answered what it waited for. */
export class OperationDeadlineError extends Error {
  override readonly name = 'OperationDeadlineError';
  /**
   * @param loading the operation waited on a plan export that had started arriving: its load
   * goes on, and a later read is answered from it
   */
  constructor(
    readonly deadlineMs: number,
    readonly loading = false,
  ) {
    super(
      loading
        ? `The plan's export was still arriving from the upstream when this operation stopped waiting (its deadline of ${deadlineMs / 1000} s, extended while data kept coming); the load goes on, and a read once it has loaded is answered from it.`
        : `The upstream did not answer within the operation's deadline of ${deadlineMs / 1000} s.`,
    );
  }
}
