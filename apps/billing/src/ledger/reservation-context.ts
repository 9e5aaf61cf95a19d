import type { ReserveCreditRequest } from '@gw/contracts';
import { type ReservationContext } from './reservation.entity';

const MAX_TEXT = 200;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const REQUEST_TYPES = ['chat', 'image', 'video', 'audio', 'embedding'];
const RESPONSE_MODES = ['sync', 'stream', 'async'];

/**
 * The optional context of a reserve request, kept only as far as it is well-formed: it merely
 * labels the history entry of a reservation that expires, so a bad field is dropped, not refused.
 */
export function reservationContext(request: ReserveCreditRequest): ReservationContext | null {
  const context: ReservationContext = {};
  const text = (value: unknown) => typeof value === 'string' && value !== '' && value.length <= MAX_TEXT;
  if (text(request.model)) context.model = request.model;
  if (REQUEST_TYPES.includes(request.requestType as string)) context.requestType = request.requestType;
  if (text(request.apiType)) context.apiType = request.apiType;
  if (RESPONSE_MODES.includes(request.responseMode as string)) context.responseMode = request.responseMode;
  if (text(request.apiKeyName)) context.apiKeyName = request.apiKeyName as string;
  if (text(request.apiKeyShort)) context.apiKeyShort = request.apiKeyShort as string;
  if (typeof request.userId === 'string' && UUID.test(request.userId)) context.userId = request.userId;
  return Object.keys(context).length > 0 ? context : null;
}
