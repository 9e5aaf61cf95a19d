import { type Decimal } from 'decimal.js';
import { formatMoney } from '../money/money';

/**
 * The request field that bounds the answer of each chat-style API (the reservation context's
 * apiType): lowering it lowers what the request must hold. Other requests (embeddings,
 * transcriptions, media) hold what their input costs, so no field of theirs helps.
 */
const ANSWER_LIMIT_FIELD_BY_API_TYPE: Readonly<Record<string, string>> = {
  chat_completions: 'max_tokens',
  messages: 'max_tokens',
  responses: 'max_output_tokens',
};

/** The 402 of a request that needs more than the balance has available, with the remedy its API offers. */
export function insufficientBalanceMessage(
  available: Decimal,
  minAmount: Decimal,
  apiType: string | undefined,
): string {
  const field =
    apiType !== undefined && Object.hasOwn(ANSWER_LIMIT_FIELD_BY_API_TYPE, apiType)
      ? ANSWER_LIMIT_FIELD_BY_API_TYPE[apiType]
      : null;
  const remedy = field ? `Top up the balance or lower ${field}.` : 'Top up the balance to continue.';
  return `Insufficient balance: ${formatMoney(available)} RUB available, but this request needs at least ${formatMoney(minAmount)} RUB. ${remedy}`;
}

/**
 * The 402 of a request when nothing of the balance is free: spent, or held by requests in progress
 * (which free what they do not spend when they finish).
 */
export function noBalanceAvailableMessage(balance: Decimal, held: Decimal): string {
  if (held.isZero())
    return `Insufficient balance: the balance is ${formatMoney(balance)} RUB. Top up the balance to continue.`;
  return `Insufficient balance: the balance is ${formatMoney(balance)} RUB and ${formatMoney(held)} RUB of it is held by requests in progress. Top up the balance to continue.`;
}
