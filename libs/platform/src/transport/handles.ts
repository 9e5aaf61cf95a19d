import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import type { BroadcastContract, MessageClass, RequestContract, RequestOf } from '@gw/contracts';
import { MessageValidationPipe } from '../validation/message-validation.pipe';

type Exactly<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/** Resolves to `unknown` (no constraint) when the handler's first parameter is exactly `Message`. */
type FirstParameterIs<Handler, Message> = Handler extends (first: infer First, ...rest: never[]) => unknown
  ? Exactly<First, Message> extends true
    ? unknown
    : { readonly 'the first parameter must be exactly the message type': Message }
  : never;

/** A method decorator whose method must take `Message` first. */
export type MessageHandlerDecorator<Message> = <Handler extends (...args: never[]) => unknown>(
  target: object,
  key: string | symbol,
  descriptor: TypedPropertyDescriptor<Handler> & FirstParameterIs<Handler, Message>,
) => void;

/**
 * Binds a method to a request contract (rpc or stream): it registers the subject and validates the
 * first parameter with the contract's class before the method runs, on NATS and on the in-process
 * bus alike (both go through Nest's pipes). A message that fails is answered with `invalid_request`
 * and never reaches the method.
 *
 * `validatedBy` names a refinement of the contract's class for a message that carries a body of the
 * public API (chat, Responses, auth's admin routes, ...): that body's rules live with its HTTP DTO in
 * libs/dto, which libs/contracts cannot import. It must extend the contract's request type, and the
 * method then takes exactly the refinement.
 */
export function HandlesRpc<C extends RequestContract>(contract: C): MessageHandlerDecorator<RequestOf<C>>;
export function HandlesRpc<C extends RequestContract, Refined extends RequestOf<C>>(
  contract: C,
  validatedBy: MessageClass<Refined>,
): MessageHandlerDecorator<Refined>;
export function HandlesRpc(contract: RequestContract, validatedBy?: MessageClass): MethodDecorator {
  return (target, key, descriptor) => {
    MessagePattern(contract.subject)(target, key, descriptor);
    Payload(new MessageValidationPipe(validatedBy ?? contract.requestClass))(target, key, 0);
  };
}

/**
 * Binds a method to a broadcast event, validated by the contract's class like a request. An event
 * has no one to answer: a malformed one is refused before the method and logged by Nest.
 */
export function HandlesEvent<C extends BroadcastContract<object>>(
  contract: C,
  extras?: Record<string, unknown>,
): MessageHandlerDecorator<RequestOf<C>> {
  return (target: object, key: string | symbol, descriptor: PropertyDescriptor) => {
    EventPattern(contract.subject, extras)(target, key, descriptor);
    Payload(new MessageValidationPipe(contract.eventClass))(target, key, 0);
  };
}
