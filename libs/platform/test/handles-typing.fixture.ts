/*
 * Compiled by handles.spec.ts, never run. Each `@ts-expect-error` marks a handler that must not
 * compile; the spec also compiles the file without those markers and counts the errors.
 */
import { BillingContracts, GetBalanceRequest, ReserveCreditRequest } from '@gw/contracts';
import { HandlesRpc } from '../src/transport/handles';

class ReserveWithNote extends ReserveCreditRequest {
  note!: string;
}

export class TypedHandlers {
  @HandlesRpc(BillingContracts.reserve)
  exact(request: ReserveCreditRequest): string {
    return request.generationId;
  }

  @HandlesRpc(BillingContracts.reserve, ReserveWithNote)
  refined(request: ReserveWithNote): string {
    return request.note;
  }

  // @ts-expect-error another contract's request
  @HandlesRpc(BillingContracts.reserve)
  otherContract(request: GetBalanceRequest): string {
    return request.organizationId;
  }

  // @ts-expect-error a wider type than the contract's
  @HandlesRpc(BillingContracts.reserve)
  untyped(request: unknown): unknown {
    return request;
  }

  // @ts-expect-error a hand-written shape that is not the class
  @HandlesRpc(BillingContracts.reserve)
  handWritten(request: { generationId: string }): string {
    return request.generationId;
  }

  // @ts-expect-error the contract's class where the refinement is validated
  @HandlesRpc(BillingContracts.reserve, ReserveWithNote)
  unrefined(request: ReserveCreditRequest): string {
    return request.generationId;
  }
}
