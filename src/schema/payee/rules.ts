/** Payee input rules (openapi-1.85.0: PostPayee, SavePayee). */
import { maxLength, notNull } from '../input-checks.js';

export const PAYEE_NAME_MAX = 500;

export interface PayeeFields {
  name?: string | null;
}

export function checkPayee(input: PayeeFields, path: string): void {
  notNull(input.name, `${path}.name`);
  maxLength(input.name, PAYEE_NAME_MAX, `${path}.name`);
}
