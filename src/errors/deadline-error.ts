/** The operation's deadline passed before the upstream answered what it waited for. */
export class OperationDeadlineError extends Error {
  override readonly name = 'OperationDeadlineError';
  constructor(readonly deadlineMs: number) {
    super(`The upstream did not answer within the operation's deadline of ${deadlineMs / 1000} s.`);
  }
}
